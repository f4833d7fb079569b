import { Link } from 'wouter';
import { showInvisibleCharacters } from '../../../../shared/visible-text';
import type { TAuditItem } from './audit-actions';
import { writeAuditFilters } from './audit-filters';
import { isAboutNoRecord, subjectNameOf, verifiedExportEventOf } from './describe-audit-event';

// What the trail shows comes from outside too (a typed email, a client's name, a file's name): a
// right-to-left override or a zero-width character in it would make an entry read as something it
// is not, so each is shown by its code.
export const visible = showInvisibleCharacters;
const SHORT_HASH = 12;

export const addressOf = (ip: string) => visible(ip.replace(/^::ffff:/, ''));

/** What an event was about, linked to its page when it has one (a client, a case, a number's conversation). */
export function AuditSubject({ event }: { event: TAuditItem }) {
  if (isAboutNoRecord(event)) return <span className="muted">—</span>;
  const name = visible(subjectNameOf(event));
  return event.subjectLink ? <Link href={event.subjectLink}>{name}</Link> : <>{name}</>;
}

/** An exported file's fingerprint, in full (it is compared character by character). */
export function ExportHash({ detail }: { detail: Record<string, unknown> }) {
  if (typeof detail.sha256 !== 'string') return null;
  return (
    <code className="audit-hash" title="SHA-256 of the exported file">
      File SHA-256 {visible(detail.sha256)}
    </code>
  );
}

/** A verification's export, when it found one: a link to the trail at that event. */
export function VerifiedExport({ event }: { event: TAuditItem }) {
  const id = verifiedExportEventOf(event);
  if (id === null) return null;
  return (
    <span className="audit-verified-export">
      {' '}
      — <Link href={`/audit${writeAuditFilters({ from: id })}`}>export event #{id}</Link>
    </span>
  );
}

/** The event's place in the chain: its number and the start of its hash (the whole in its title). */
export function EntryHash({ event }: { event: TAuditItem }) {
  return (
    <code className="audit-short-hash" title={`This entry’s hash: ${event.hash}\nThe entry before it: ${event.prevHash}`}>
      {event.hash.slice(0, SHORT_HASH)}…
    </code>
  );
}
