import { formatDate } from '../../lib/format';

/** How a client was erased: at their request, or under the retention policy (the default, for records and cases). */
export type TErasedBy = 'request' | 'retention';

/** What stands where an erased record's text, or an erased case's title, was (server/records/README.md "Records"). */
export function erasedText(erasedAt: Date | string, by: TErasedBy = 'retention'): string {
  const day = formatDate(new Date(erasedAt));
  return by === 'request' ? `Erased on ${day} at the client's request` : `Erased under the retention policy on ${day}`;
}

/** A record whose content retention or an erasure request destroyed: the record stays, muted. */
export function ErasedNote({ erasedAt, by, className = 'erased-note' }: { erasedAt: Date | string; by?: TErasedBy; className?: string }) {
  return <p className={className}>{erasedText(erasedAt, by)}</p>;
}
