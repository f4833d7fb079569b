import { describe, expect, it } from 'vitest';
import { isWorthRetrying, queuedItemOf, queuedToShow, type TQueuedSend } from '../../client/src/features/composer/queued-sends';
import type { TThreadItem } from '../../client/src/lib/trpc';

const at = Date.parse('2026-11-24T10:00:00Z');

function queued(patch: Partial<TQueuedSend> = {}): TQueuedSend {
  return {
    echoId: 'echo-1',
    userId: 7,
    threadKey: 'client-1',
    threadRef: { clientId: 1 },
    tempId: -1,
    queuedAt: at,
    call: { procedure: 'send', input: { clientId: 1, body: 'See you at ten' } },
    shown: { body: 'See you at ten', caseId: null, clientId: 1, peerPhone: '447700900123', sentBy: { id: 7, name: 'Sam' }, template: null },
    attempts: 0,
    ...patch,
  };
}

function stored(patch: Partial<TThreadItem> = {}): TThreadItem {
  return { ...queuedItemOf(queued()), id: 41, status: 'sent', createdAt: new Date(at + 400), ...patch };
}

describe('a queued send and the stored record it became', () => {
  it('is recognised by its echo id, whatever else differs', () => {
    const copy = stored({ body: 'edited on the way', createdAt: new Date(at - 3_600_000), metadata: { echo_id: 'echo-1' } });
    expect(queuedToShow([copy], [queued()])).toEqual([]);
  });

  it('is never guessed from the same words: the same text sent twice is two messages', () => {
    expect(queuedToShow([stored()], [queued({ attempts: 1 })])).toHaveLength(1);
    expect(queuedToShow([stored({ metadata: { echo_id: 'echo-2' } })], [queued()])).toHaveLength(1);
  });

  it('is shown until its stored record is there, then only the stored one is', () => {
    const first = queued({ echoId: 'a', tempId: -1 });
    const second = queued({ echoId: 'b', tempId: -2 });
    expect(queuedToShow([stored()], [first, second]).map((e) => e.echoId)).toEqual(['a', 'b']);
    expect(queuedToShow([stored({ metadata: { echo_id: 'a' } })], [first, second]).map((e) => e.echoId)).toEqual(['b']);
  });

  it('is shown meanwhile as an outbound message with its clock', () => {
    expect(queuedItemOf(queued())).toMatchObject({
      id: -1,
      direction: 'outbound',
      status: 'pending',
      body: 'See you at ten',
      sentBy: { id: 7 },
    });
    const template = { name: 'hello_world', language: 'en_US', params: [] };
    expect(queuedItemOf(queued({ shown: { ...queued().shown, body: 'Template: hello_world', template } })).metadata).toEqual({
      kind: 'template',
      template,
    });
  });
});

describe('a send kept to be tried again, or given up', () => {
  it('is tried again when no answer came, or the server said "not now"; a refusal is final', () => {
    expect(isWorthRetrying(new TypeError('Failed to fetch'))).toBe(true);
    expect(isWorthRetrying({ message: 'Unable to transform response from server', shape: undefined })).toBe(true);
    expect(isWorthRetrying({ message: 'The database is not answering', shape: {}, data: { code: 'SERVICE_UNAVAILABLE' } })).toBe(true);
    expect(isWorthRetrying({ message: 'Slow down', shape: {}, data: { code: 'TOO_MANY_REQUESTS' } })).toBe(true);
    expect(isWorthRetrying({ message: 'Invalid input', shape: { code: -32600 }, data: { code: 'BAD_REQUEST' } })).toBe(false);
    expect(isWorthRetrying({ message: 'Opted out', shape: {}, data: { code: 'PRECONDITION_FAILED' } })).toBe(false);
    expect(isWorthRetrying({ message: 'Unavailable', shape: {}, data: { code: 'BAD_GATEWAY' } })).toBe(false);
  });
});
