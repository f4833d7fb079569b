import { describe, expect, it } from 'vitest';
import { InboundBatcher } from '../../server/messaging/inbound-batcher';
import type { TStoredInbound } from '../../server/messaging/store-inbound';
import type { TInboundMessage } from '../../server/messaging/inbound-message';

const text = (id: string, body = 'hi'): TInboundMessage => ({
  chatMsgId: id,
  peerPhone: '447700900123',
  direction: 'inbound',
  kind: 'text',
  body,
  providerTimestamp: null,
  contactName: null,
  truncated: null,
  extra: {},
  attachment: null,
});

/** Behaves like the INSERT … ON CONFLICT DO NOTHING: returns the ids it had not seen. */
function createStore(options: { failOn?: string } = {}) {
  const seen = new Set<string>();
  const calls: string[][] = [];
  let nextId = 1;
  const store = async (texts: TInboundMessage[]): Promise<TStoredInbound[]> => {
    calls.push(texts.map((t) => t.chatMsgId));
    await new Promise((r) => setTimeout(r, 5));
    if (options.failOn && texts.some((t) => t.chatMsgId === options.failOn)) throw new Error('bad row');
    const rows: TStoredInbound[] = [];
    for (const t of texts) {
      if (seen.has(t.chatMsgId)) continue;
      seen.add(t.chatMsgId);
      rows.push({ id: nextId++, clientId: null, peerPhone: t.peerPhone, chatMsgId: t.chatMsgId, hasAttachment: false });
    }
    return rows;
  };
  return { store, calls };
}

describe('group commit of inbound messages', () => {
  it('coalesces deliveries that arrive while a write is in flight into one statement', async () => {
    const { store, calls } = createStore();
    const batcher = new InboundBatcher(store, { maxInFlight: 1 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => batcher.submit([text(`m${i}`)])));
    expect(results.every((r) => r.length === 1)).toBe(true);
    expect(calls.length).toBeLessThan(20);
    expect(calls.flat().sort()).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`).sort());
  });

  it('credits a message new in the batch to exactly one delivery, even when duplicated across deliveries', async () => {
    const { store } = createStore();
    const batcher = new InboundBatcher(store, { maxInFlight: 1 });
    const results = await Promise.all([
      batcher.submit([text('warmup')]),
      ...Array.from({ length: 10 }, () => batcher.submit([text('dup')])),
    ]);
    expect(results.slice(1).reduce((n, r) => n + r.length, 0)).toBe(1);
  });

  it('isolates a delivery that spoils the shared statement: the others are still stored', async () => {
    const { store } = createStore({ failOn: 'poison' });
    const batcher = new InboundBatcher(store, { maxInFlight: 1 });
    const outcomes = await Promise.allSettled([
      batcher.submit([text('first')]),
      batcher.submit([text('a')]),
      batcher.submit([text('poison')]),
      batcher.submit([text('b')]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  });
});
