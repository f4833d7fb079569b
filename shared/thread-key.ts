/**
 * A conversation's key: one per client, plus one per number no client is linked to. The same rule
 * as the database's chat_thread_key() (migration 0003), which keeps the summary rows.
 */
export function threadKeyOf(item: { clientId: number | null; peerPhone: string | null }): string {
  return item.clientId !== null ? `client-${item.clientId}` : `phone-${item.peerPhone ?? ''}`;
}

/** A conversation as a request names it: a client's, or a number's that no client is linked to. */
export type TThreadRef = { clientId: number } | { phone: string };

/** The key of the conversation a thread reference opens (`phone` as digits). */
export function threadKeyOfRef(ref: TThreadRef): string {
  return threadKeyOf('clientId' in ref ? { clientId: ref.clientId, peerPhone: null } : { clientId: null, peerPhone: ref.phone });
}
