import { describe, expect, it } from 'vitest';
import { parsePayload } from '../../server/webhook/parse-payload';

const message = (id: string, from = '447700900123') => ({ id, from, type: 'text', text: { body: 'hi' } });

describe('parsePayload on hostile items', () => {
  it('skips ids with a lone surrogate (they would collide once stored), keeps the sibling', () => {
    const parsed = parsePayload({ messages: [message('wamid.X-\ud800'), message('wamid.X-\udfff'), message('wamid.ok')] });
    expect(parsed.received).toBe(3);
    expect(parsed.messages.map((t) => t.chatMsgId)).toEqual(['wamid.ok']);
  });

  it('shows a profile name without control characters or bidirectional overrides', () => {
    const parsed = parsePayload({
      contacts: [{ wa_id: '447700900123', profile: { name: '\u202Eevil\u0007\n\r\tname' } }],
      messages: [message('wamid.name')],
    });
    expect(parsed.messages[0]?.contactName).toBe('evil name');
  });

  it('keeps the code and the first 1,000 characters of an oversized error detail', () => {
    const parsed = parsePayload({
      statuses: [
        {
          id: 'wamid.f',
          status: 'failed',
          errors: [{ code: 131026, title: 'Undeliverable', error_data: { details: 'x'.repeat(200_000) } }],
        },
      ],
    });
    expect(parsed.receipts[0]?.error?.code).toBe(131026);
    expect(parsed.receipts[0]?.error?.details).toHaveLength(1000);
  });

  it('reads senders written with +00 as every lookup does, and refuses ones that start with 0', () => {
    const parsed = parsePayload({
      messages: [message('a', '+0033612345678'), message('b', '0033612345678'), message('c', '+07700900456')],
    });
    expect(parsed.messages.map((t) => t.peerPhone)).toEqual(['33612345678', '33612345678']);
  });
});
