/**
 * A conversation's key: one per client, plus one per number no client is linked to. The same rule
 * as the database's chat_thread_key() (migration 0003), which keeps the summary rows.
 */
export function threadKeyOf(item: { clientId: number | null; peerPhone: string | null }): string {
  return item.clientId !== null ? `client-${item.clientId}` : `phone-${item.peerPhone ?? ''}`;
}
