import type { TInputs, TThreadItem, TThreadRef } from '../../lib/trpc';

// Messages sent from this browser that the server has not confirmed yet: made offline, or whose
// request went out and got no answer. Each is kept (in IndexedDB, see outbox.ts) until the server
// answers for it, and is shown in its conversation with a clock meanwhile. Each carries an echo id:
// the server keeps it on the record (`metadata.echo_id`) and answers a send tried again with it with
// the first record, so a send whose answer was lost is simply made again, never twice.

export type TQueuedCall =
  { procedure: 'send'; input: TInputs['chat']['send'] } | { procedure: 'sendTemplate'; input: TInputs['chat']['sendTemplate'] };

export type TQueuedSend = {
  /** Made here, sent with the message: the server's record says which queued send it is. */
  echoId: string;
  userId: number;
  threadKey: string;
  threadRef: TThreadRef;
  /** Its place in the thread until it is stored (negative: never a stored record's id). */
  tempId: number;
  queuedAt: number;
  call: TQueuedCall;
  /** What the thread shows meanwhile. */
  shown: {
    body: string;
    caseId: number | null;
    clientId: number | null;
    peerPhone: string | null;
    /** The firm's number it goes from (absent in sends queued before there were several: number 1). */
    firmNumberId?: number;
    sentBy: { id: number; name: string } | null;
    template: { name: string; language: string; params: string[] } | null;
  };
  /** Requests that went out and got no answer (the server may hold the first: the next is answered with it). */
  attempts: number;
};

/** The queued sends to show after `items`: those whose stored record is already there are not shown twice. */
export function queuedToShow(items: TThreadItem[], entries: TQueuedSend[]): TQueuedSend[] {
  const stored = new Set(items.map((i) => i.metadata.echo_id).filter(Boolean));
  return entries.filter((entry) => !stored.has(entry.echoId));
}

/** A queued send as a thread item: outbound, pending (its clock). */
export function queuedItemOf(entry: TQueuedSend): TThreadItem {
  return {
    id: entry.tempId,
    type: 'chat',
    direction: 'outbound',
    subject: null,
    body: entry.shown.body,
    status: 'pending',
    error: null,
    attachments: [],
    sentBy: entry.shown.sentBy,
    clientId: entry.shown.clientId,
    caseId: entry.shown.caseId,
    peerPhone: entry.shown.peerPhone,
    firmNumberId: entry.shown.firmNumberId ?? 1,
    metadata: entry.shown.template ? { kind: 'template', template: entry.shown.template } : {},
    providerTimestamp: null,
    readAt: null,
    createdAt: new Date(entry.queuedAt),
    receipts: [],
    version: 0, // not stored yet: no record's version
  };
}

/**
 * Whether a send is kept to be tried again rather than given up: no answer at all (offline, the
 * connection dropped, a proxy's error page), or the server saying "not now" (its database away, too
 * many at once). Made again with its echo id, it is never sent twice.
 */
export function isWorthRetrying(error: unknown): boolean {
  const shape = (error as { shape?: unknown } | null)?.shape;
  if (typeof shape !== 'object' || shape === null) return true;
  const code = errorCodeOf(error);
  return code === 'SERVICE_UNAVAILABLE' || code === 'TOO_MANY_REQUESTS';
}

/** The tRPC error code of a server's answer ('BAD_REQUEST', …), or null. */
export function errorCodeOf(error: unknown): string | null {
  const code = (error as { data?: { code?: unknown } } | null)?.data?.code;
  return typeof code === 'string' ? code : null;
}
