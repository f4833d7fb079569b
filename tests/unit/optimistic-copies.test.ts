import { describe, expect, it } from 'vitest';
import { hideArrivedCopies } from '../../client/src/features/conversation/optimistic-copies';
import type { TThreadItem } from '../../client/src/lib/trpc';

const at = Date.parse('2026-11-24T10:00:00Z');

/** An outbound "OK" from Sam: an optimistic copy (negative id) or a stored record, with its send's echo id. */
function ok(id: number, echoId: string, sentAt: number): TThreadItem {
  return {
    id,
    type: 'chat',
    direction: 'outbound',
    subject: null,
    body: 'OK',
    status: id < 0 ? 'pending' : 'sent',
    error: null,
    attachments: [],
    sentBy: { id: 7, name: 'Sam' },
    clientId: 1,
    caseId: null,
    peerPhone: '447700900123',
    firmNumberId: 1,
    metadata: { echo_id: echoId },
    providerTimestamp: null,
    readAt: null,
    createdAt: new Date(sentAt),
    receipts: [],
    version: 1,
  };
}

describe('an optimistic copy and the stored record it became', () => {
  it('pairs two identical quick "OK"s each with its own record, whichever arrives first', () => {
    const first = ok(-1, 'echo-first', at);
    const second = ok(-2, 'echo-second', at + 300);
    // The second send's record came back first (its live update overtook the first's answer).
    const secondStored = ok(41, 'echo-second', at + 350);
    const shown = hideArrivedCopies([first, second, secondStored]);
    expect(shown.map((i) => i.id)).toEqual([-1, 41]);
    expect(shown.find((i) => i.id < 0)?.metadata.echo_id).toBe('echo-first');
    // Then the first's: both copies are gone, each for its own record.
    expect(hideArrivedCopies([first, second, secondStored, ok(42, 'echo-first', at + 400)]).map((i) => i.id)).toEqual([41, 42]);
  });

  it('is never guessed from the words, the sender or the time', () => {
    const copy = ok(-1, 'echo-mine', at);
    // The same "OK" from the same person a moment later, sent from another tab: another message.
    expect(hideArrivedCopies([copy, ok(41, 'echo-other-tab', at + 100)]).map((i) => i.id)).toEqual([-1, 41]);
    // A stored record without an echo id (sent from the phone, or before echo ids) stands for no copy.
    const { echo_id: _none, ...bare } = copy.metadata;
    expect(hideArrivedCopies([copy, { ...ok(41, '', at + 100), metadata: bare }]).map((i) => i.id)).toEqual([-1, 41]);
  });

  it('leaves a thread with no copy as it is', () => {
    const items = [ok(40, 'echo-a', at), ok(41, 'echo-b', at + 1)];
    expect(hideArrivedCopies(items)).toBe(items);
  });
});
