import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TTestServer } from '../support/test-server';
import { postWebhook, sql, WEBHOOK_SECRET } from '../support/webhook';

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(() => server?.stop());

let n = 0;
const validText = fc
  .record({
    from: fc.stringMatching(/^[1-9]\d{7,14}$/), // E.164 digits, as the provider sends them
    type: fc.constant('text'),
    text: fc.record({ body: fc.string({ unit: 'grapheme', maxLength: 300 }) }),
  })
  .map((m) => ({ ...m, id: `wamid.prop-${++n}` }));
const broken = fc.oneof(
  fc.anything(),
  validText.map((m) => ({ ...m, text: { body: 42 } })),
  validText.map((m) => ({ ...m, from: { digits: m.from } })),
  validText.map((m) => ({ ...m, id: '' })),
  validText.map((m) => ({ ...m, type: 'image' })),
);
const item = fc.oneof(
  validText.map((m) => ({ valid: true as const, m })),
  broken.map((m) => ({ valid: false as const, m })),
);

it('any mix of valid and broken items: always 200, every valid text stored whole, nothing else', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(item, { maxLength: 5 }), { minLength: 1, maxLength: 3 }), async (changes) => {
      const payload = {
        object: 'whatsapp_business_account',
        entry: [{ id: 'P', changes: changes.map((items) => ({ value: { messages: items.map((i) => i.m) } })) }],
      };
      const res = await postWebhook(server.url, payload);
      expect(res.status).toBe(200);
      const valid = changes
        .flat()
        .filter((i) => i.valid)
        .map((i) => i.m as { id: string; from: string; text: { body: string } });
      expect(res.json).toMatchObject({ ok: true, received: changes.flat().length, stored: valid.length });
      if (valid.length === 0) return;
      const rows = await sql<{ id: string; body: string; peer: string }>(
        server.databaseUrl,
        "SELECT metadata->>'chat_msg_id' AS id, body, peer_phone AS peer FROM communications WHERE metadata->>'chat_msg_id' = ANY($1::text[])",
        [valid.map((v) => v.id)],
      );
      for (const v of valid) {
        expect(rows).toContainEqual({ id: v.id, body: v.text.body.replaceAll('\u0000', '\uFFFD'), peer: v.from });
      }
    }),
    { numRuns: 60 },
  );
}, 120_000);
