import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TChatChange } from '../../server/events/chat-events';
import type { TThreadItem } from '../../server/inbox/thread-items';
import { createClient } from '../../server/crm/clients';
import { startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, statusItem, textMessage, VERIFY_TOKEN, WEBHOOK_SECRET } from '../support/webhook';
import { match } from '../support/matchers';

let server: TTestServer;
let amelia: { id: number };
let reyesA: { id: number };
const changes: TChatChange<TThreadItem>[] = [];

beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET, MESSAGING_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN });
  amelia = await createClient({ name: 'Amelia Hart', phone: '+44 7700 900123' });
  reyesA = await createClient({ name: 'Daniel Reyes', phone: '+44 7700 900555' });
  await createClient({ name: 'Daniela Reyes', phone: '+353 77 0090 0555' });
  server.events.subscribe((c) => changes.push(c));
});
afterAll(() => server?.stop());

type TRow = {
  client_id: number | null;
  peer_phone: string;
  body: string;
  direction: string;
  type: string;
  metadata: Record<string, string>;
  provider_timestamp: Date | null;
};
const rowFor = async (id: string) =>
  (await sql<TRow>(server.databaseUrl, "SELECT * FROM communications WHERE metadata->>'chat_msg_id' = $1", [id]))[0];
const countFor = async (id: string) =>
  Number(
    (await sql<{ n: string }>(server.databaseUrl, "SELECT count(*) AS n FROM communications WHERE metadata->>'chat_msg_id' = $1", [id]))[0]!
      .n,
  );

describe('inbound text messages', () => {
  it('stores a cloud-shape text as an inbound chat record linked by the last 9 digits, keeping time and profile name', async () => {
    const payload = cloudPayload({
      contacts: [{ profile: { name: 'Amelia H' }, wa_id: '447700900123' }],
      messages: [textMessage('wamid.cloud-1', '447700900123', 'Hello from the cloud', '1763700000')],
    });
    expect(await postWebhook(server.url, payload)).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
    const row = await rowFor('wamid.cloud-1');
    expect(row).toMatchObject({
      type: 'chat',
      direction: 'inbound',
      body: 'Hello from the cloud',
      client_id: amelia.id,
      peer_phone: '447700900123',
    });
    expect(row?.metadata).toEqual({ chat_msg_id: 'wamid.cloud-1', contact_name: 'Amelia H' });
    expect(row?.provider_timestamp?.toISOString()).toBe('2025-11-21T04:40:00.000Z');
    // Announced through PostgreSQL NOTIFY, on commit, with the stored record.
    await vi.waitFor(() => {
      const items = changes.flatMap((c) => ('items' in c ? c.items : []));
      expect(items).toContainEqual(match.objectContaining({ body: 'Hello from the cloud', clientId: amelia.id, direction: 'inbound' }));
    });
  });

  it('stores the legacy on-premise shape (root messages)', async () => {
    const payload = {
      contacts: [{ profile: { name: 'Legacy' }, wa_id: '447700900123' }],
      messages: [textMessage('wamid.legacy-1', '447700900123', 'Legacy hello')],
    };
    expect(await postWebhook(server.url, payload)).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
    expect((await rowFor('wamid.legacy-1'))?.client_id).toBe(amelia.id);
  });

  it.each([
    ['+44 7700 900123 style', '447700900123'],
    ['00-prefixed', '00447700900123'],
    ['+00-prefixed', '+00447700900123'],
  ])('links a sender written %s to the client saved as +44 7700 900123', async (_name, from) => {
    const id = `wamid.match-${from}`;
    await postWebhook(server.url, cloudPayload({ messages: [textMessage(id, from, 'match me')] }));
    expect((await rowFor(id))?.client_id).toBe(amelia.id);
  });

  it('counts, and does not store, a sender in national format (a provider sends international digits; its thread could not be read back)', async () => {
    expect(await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.national', '07700900123', 'national')] }))).toEqual({
      status: 200,
      json: { ok: true, received: 1, stored: 0 },
    });
  });

  it('stores a sender whose last 9 digits match two clients, and the full number neither, unlinked; an unknown sender unlinked with their profile name', async () => {
    await postWebhook(
      server.url,
      cloudPayload({
        contacts: [
          { profile: { name: 'Dan R' }, wa_id: '33700900555' },
          { profile: { name: 'Priya Shah' }, wa_id: '447700900999' },
        ],
        messages: [textMessage('wamid.ambiguous', '33700900555', 'which Reyes?'), textMessage('wamid.unknown', '447700900999', 'new here')],
      }),
    );
    expect((await rowFor('wamid.ambiguous'))?.client_id).toBeNull();
    expect(await rowFor('wamid.unknown')).toMatchObject({
      client_id: null,
      metadata: { chat_msg_id: 'wamid.unknown', contact_name: 'Priya Shah' },
    });
  });

  it("links a sender whose full number is exactly one client's, although another client shares its last 9 digits", async () => {
    await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.exact-daniel', '447700900555', 'Daniel here')] }));
    expect((await rowFor('wamid.exact-daniel'))?.client_id).toBe(reyesA.id);
  });

  it('stores media with a pending file, and counts kinds it does not store (orders, unsupported) without storing them', async () => {
    const payload = cloudPayload({
      messages: [
        { from: '447700900123', id: 'wamid.image', timestamp: '1763700000', type: 'image', image: { id: 'm1', mime_type: 'image/jpeg' } },
        { from: '447700900123', id: 'wamid.audio', timestamp: '1763700000', type: 'audio', audio: { id: 'm2' } },
        { from: '447700900123', id: 'wamid.order', timestamp: '1763700000', type: 'order', order: { catalog_id: '1', product_items: [] } },
        { from: '447700900123', id: 'wamid.unsupported', timestamp: '1763700000', type: 'unsupported', errors: [{ code: 131051 }] },
      ],
    });
    expect(await postWebhook(server.url, payload)).toEqual({ status: 200, json: { ok: true, received: 4, stored: 2 } });
    expect(await countFor('wamid.image')).toBe(1);
    expect(await countFor('wamid.order')).toBe(0);
    expect(await countFor('wamid.unsupported')).toBe(0);
  });

  it('stores one row for a retried delivery', async () => {
    const payload = cloudPayload({ messages: [textMessage('wamid.retry', '447700900123', 'once')] });
    expect((await postWebhook(server.url, payload)).json).toEqual({ ok: true, received: 1, stored: 1 });
    expect((await postWebhook(server.url, payload)).json).toEqual({ ok: true, received: 1, stored: 0 });
    expect(await countFor('wamid.retry')).toBe(1);
  });

  it('stores one row for 20 concurrent deliveries of the same message', async () => {
    const payload = cloudPayload({ messages: [textMessage('wamid.concurrent', '447700900123', 'race')] });
    const results = await Promise.all(Array.from({ length: 20 }, () => postWebhook(server.url, payload)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.reduce((sum, r) => sum + Number(r.json.stored), 0)).toBe(1);
    expect(await countFor('wamid.concurrent')).toBe(1);
  });

  it('walks every entry and change: 2 entries × 3 changes of messages and statuses, one malformed item skipped', async () => {
    const change = (value: Record<string, unknown>) => ({ field: 'messages', value: { messaging_product: 'whatsapp', ...value } });
    const payload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'A',
          changes: [
            change({
              messages: [textMessage('wamid.b1', '447700900123', 'one'), { from: '447700900123', type: 'text', text: { body: 'no id' } }],
            }),
            change({ statuses: [statusItem('wamid.unknown-out-1', 'delivered')] }),
            change({ messages: [textMessage('wamid.b2', '447700900123', 'two')], statuses: [statusItem('wamid.unknown-out-2', 'read')] }),
          ],
        },
        {
          id: 'B',
          changes: [
            change({ messages: [textMessage('wamid.b3', '447700900999', 'three')] }),
            change({ statuses: [{ id: 'wamid.unknown-out-3', status: 'played' }, 'garbage'] }),
            change({ messages: [textMessage('wamid.b4', '447700900123', 'four')] }),
          ],
        },
      ],
    };
    expect(await postWebhook(server.url, payload)).toEqual({
      status: 200,
      json: { ok: true, received: 5, stored: 4, statuses: 4, updated: 0 },
    });
    for (const id of ['wamid.b1', 'wamid.b2', 'wamid.b3', 'wamid.b4']) expect(await countFor(id)).toBe(1);
  });

  it('answers 200 with zero counts to JSON of an unknown shape, storing nothing', async () => {
    expect(await postWebhook(server.url, { hello: 'world' })).toEqual({ status: 200, json: { ok: true, received: 0, stored: 0 } });
    expect(await postWebhook(server.url, [1, 2, 3])).toEqual({ status: 200, json: { ok: true, received: 0, stored: 0 } });
    expect(await postWebhook(server.url, { entry: 'nope', messages: 'nope' })).toEqual({
      status: 200,
      json: { ok: true, received: 0, stored: 0 },
    });
  });

  it('prototype-pollution keys change nothing', async () => {
    const raw = `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"entry":[{"changes":[{"value":{"__proto__":{"isAdmin":true},"messages":[{"__proto__":{"type":"text"},"from":"447700900123","id":"wamid.proto","type":"text","text":{"body":"proto","__proto__":{"x":1}}}]}}]}]}`;
    const res = await postWebhook(server.url, raw);
    expect(res).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect((await rowFor('wamid.proto'))?.metadata).toEqual({ chat_msg_id: 'wamid.proto' });
  });

  it('keeps a message whose text holds a NUL character, readable', async () => {
    const res = await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.nul', '447700900123', 'a\u0000b')] }));
    expect(res.status).toBe(200);
    expect((await rowFor('wamid.nul'))?.body).toBe('a\uFFFDb');
  });
});
