import { formatDate } from '../../lib/format';

/** What stands where an erased record's text, or an erased case's title, was (server/records/README.md "Records"). */
export function erasedText(erasedAt: Date | string): string {
  return `Erased under the retention policy on ${formatDate(new Date(erasedAt))}`;
}

/** A record whose content retention or an erasure request destroyed: the record stays, muted. */
export function ErasedNote({ erasedAt, className = 'erased-note' }: { erasedAt: Date | string; className?: string }) {
  return <p className={className}>{erasedText(erasedAt)}</p>;
}
