import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePayload } from '../../server/webhook/parse-payload';

const textItem = fc.record({
  from: fc.stringMatching(/^[1-9]\d{7,14}$/), // E.164 digits, as the provider sends them
  id: fc.string({ minLength: 1, maxLength: 40 }),
  type: fc.constant('text'),
  timestamp: fc.oneof(fc.integer({ min: 1, max: 2_000_000_000 }).map(String), fc.integer(), fc.constant('nope')),
  text: fc.record({ body: fc.string({ unit: 'grapheme', maxLength: 200 }) }),
});
const junk = fc.oneof(
  fc.anything(),
  fc.json().map((s) => JSON.parse(s) as unknown),
);
const item = fc.oneof(
  textItem,
  junk,
  textItem.map((t) => ({ ...t, text: 5 })),
  textItem.map((t) => ({ ...t, id: ['x'] })),
);
const value = fc.record(
  {
    messages: fc.oneof(fc.array(item, { maxLength: 8 }), junk),
    statuses: fc.oneof(fc.array(junk, { maxLength: 5 }), junk),
    contacts: junk,
  },
  { requiredKeys: [] },
);
const payload = fc.oneof(
  fc.record({ entry: fc.array(fc.record({ changes: fc.array(fc.record({ value }), { maxLength: 4 }) }), { maxLength: 4 }) }),
  value,
  junk,
);

describe('the webhook parser on arbitrary input', () => {
  it('never throws, and keeps only whole, valid text messages', () => {
    fc.assert(
      fc.property(payload, (input) => {
        const parsed = parsePayload(input);
        expect(parsed.messages.length).toBeLessThanOrEqual(parsed.received);
        expect(parsed.receipts.length).toBeLessThanOrEqual(parsed.statusCount);
        for (const t of parsed.messages) {
          expect(typeof t.body).toBe('string');
          expect(t.peerPhone).toMatch(/^\d+$/);
          expect(t.chatMsgId.length).toBeGreaterThan(0);
          expect(t.body).not.toContain('\u0000');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('survives deep nesting and huge arrays', () => {
    let deep: unknown = { messages: [] };
    for (let i = 0; i < 5_000; i++) deep = { entry: [{ changes: [{ value: deep }] }], nested: deep };
    expect(() => parsePayload(deep)).not.toThrow();
    const huge = {
      messages: Array.from({ length: 100_000 }, (_, i) =>
        i % 2 ? 'x' : { id: `m${i}`, from: '447700900123', type: 'text', text: { body: 'hi' } },
      ),
    };
    const parsed = parsePayload(huge);
    expect(parsed).toMatchObject({ received: 100_000 });
    expect(parsed.messages).toHaveLength(50_000);
  });
});
