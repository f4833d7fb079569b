import type { TThreadItem } from '../../lib/trpc';

// A message sent from here shows at once as an optimistic copy (a negative id), carrying the echo id
// its send went with. The server keeps that echo id on the record it stores (`metadata.echo_id`),
// and the live update may bring that record before the send's own answer does: from then on the
// record stands for the copy. Only the echo id pairs them — never the words, the sender or the time,
// which two quick "OK"s share.

/** The thread's items without the optimistic copies whose stored record is already among them. */
export function hideArrivedCopies(items: TThreadItem[]): TThreadItem[] {
  const copies = items.filter((i) => i.id < 0 && i.metadata.echo_id);
  if (!copies.length) return items;
  const stored = new Set(items.filter((i) => i.id > 0 && i.metadata.echo_id).map((i) => i.metadata.echo_id));
  const arrived = new Set(copies.filter((copy) => stored.has(copy.metadata.echo_id)));
  return arrived.size ? items.filter((i) => !arrived.has(i)) : items;
}
