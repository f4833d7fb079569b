import { useId, useState, useSyncExternalStore, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { showInvisibleCharacters } from '../../../../shared/visible-text';
import { formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { readAuditFilters, readHashPrefix, writeAuditFilters, type TAuditFilters } from './audit-filters';
import { AuditSubjectFilter, type TChosenSubject } from './audit-subject-filter';
import { AuditTrailHead } from './audit-trail-head';
import { ACTION_LABEL, type TAuditAction, type TAuditItem } from './audit-actions';
import { describeAuditEvent, isAboutNoRecord, subjectNameOf, verifiedExportEventOf } from './describe-audit-event';
import { VerifyCopy } from './verify-copy';

// What the trail shows comes from outside too (a typed email, a client's name, a file's name): a
// right-to-left override or a zero-width character in it would make an entry read as something it
// is not, so each is shown by its code.
const visible = showInvisibleCharacters;
const PAGE = 50;
const SHORT_HASH = 12;

/** What an event was about, linked to its page when it has one (a client, a case, a number's conversation). */
function AuditSubject({ event }: { event: TAuditItem }) {
  if (isAboutNoRecord(event)) return <span className="muted">—</span>;
  const name = visible(subjectNameOf(event));
  return event.subjectLink ? <Link href={event.subjectLink}>{name}</Link> : <>{name}</>;
}

/** An exported file's fingerprint, in full (it is compared character by character). */
function ExportHash({ detail }: { detail: Record<string, unknown> }) {
  if (typeof detail.sha256 !== 'string') return null;
  return (
    <code className="audit-hash" title="SHA-256 of the exported file">
      File SHA-256 {visible(detail.sha256)}
    </code>
  );
}

/** A verification's export, when it found one: a link to the trail at that event. */
function VerifiedExport({ event }: { event: TAuditItem }) {
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
function EntryHash({ event }: { event: TAuditItem }) {
  return (
    <code className="audit-short-hash" title={`This entry’s hash: ${event.hash}\nThe entry before it: ${event.prevHash}`}>
      {event.hash.slice(0, SHORT_HASH)}…
    </code>
  );
}

// Five columns do not fit a phone: there each event is a short card (the sentence, when and from where, about what, its hash).
const NARROW = '(max-width: 640px)';
const subscribeToNarrow = (onChange: () => void) => {
  const query = window.matchMedia(NARROW);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
};
const isNarrow = () => window.matchMedia(NARROW).matches;
const addressOf = (ip: string) => visible(ip.replace(/^::ffff:/, ''));

/** "Hash starts with": what a regulator holding an export's chain head types. */
function HashFilter({ hash, onFind }: { hash: string | undefined; onFind: (hash: string | undefined) => void }) {
  const [typed, setTyped] = useState(hash ?? '');
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (typed.trim() === '') {
      setError(null);
      onFind(undefined);
      return;
    }
    const prefix = readHashPrefix(typed);
    if (!prefix) {
      setError('Type at least 6 of the hash’s characters (0–9, a–f).');
      return;
    }
    setError(null);
    onFind(prefix);
  };
  return (
    <form className="audit-hash-filter" onSubmit={submit} role="search" aria-label="Find an event by its hash">
      <label className="compact-field">
        <span>Hash</span>
        <input
          type="search"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          placeholder="First 6+ characters"
          spellCheck={false}
          autoComplete="off"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
      </label>
      <button type="submit" className="button small ghost">
        Find
      </button>
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** Who did what, when and from where (directors; the server refuses anyone else). */
export function AuditPage() {
  // The filters are part of the address: a link can open the trail at an event or about a client.
  const [location, navigate] = useLocation();
  const search = useSearch();
  const filters = readAuditFilters(search);
  const filterKey = writeAuditFilters(filters);
  const setFilters = (next: TAuditFilters) => navigate(`${location}${writeAuditFilters(next)}`, { replace: true });
  const [older, setOlder] = useState<{ key: string; before: number[] }>({ key: '', before: [] });
  const before = older.key === filterKey ? older.before : []; // the pages loaded after the first
  const [picked, setPicked] = useState<TChosenSubject | null>(null);
  const users = trpc.users.list.useQuery();
  const input = {
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.userId ? { userId: filters.userId } : {}),
    ...(filters.subject ? { subject: filters.subject } : {}),
    ...(filters.hash ? { hash: filters.hash } : {}),
  };
  const first = trpc.audit.list.useQuery({ ...input, limit: PAGE, ...(filters.from ? { before: filters.from + 1 } : {}) });
  const later = trpc.useQueries((t) => before.map((b) => t.audit.list({ ...input, limit: PAGE, before: b })));
  const pages = [first.data, ...later.map((q) => q.data)].filter((p): p is NonNullable<typeof p> => Boolean(p));
  const items = pages.flatMap((p) => p.items);
  const next = pages.length === before.length + 1 ? pages[pages.length - 1]!.nextBefore : null;
  const narrow = useSyncExternalStore(subscribeToNarrow, isNarrow);
  const hasFilter = filterKey !== '';

  // The chosen subject's name: as picked, else as the trail names it (the filter came in a link).
  const chosenSubject: TChosenSubject | null = filters.subject
    ? {
        subject: filters.subject,
        name:
          (picked?.subject === filters.subject ? picked.name : null) ??
          items.find((e) => e.subject === filters.subject)?.subjectLabel ??
          filters.subject.replace(':', ' #'),
      }
    : null;

  return (
    <div className="page audit-page">
      <div className="page-header">
        <div>
          <h1>Audit trail</h1>
          <p className="muted">
            Every sign-in, link, export and setting change: who, when and from which address. Entries cannot be changed or removed; each
            carries the hash of the one before it.
          </p>
        </div>
      </div>
      <AuditTrailHead />
      <VerifyCopy />
      <section className="card" aria-label="Audit events">
        <div className="filters audit-filters" role="group" aria-label="Filter the trail">
          <label className="compact-field">
            <span>Action</span>
            <select
              value={filters.action ?? ''}
              onChange={(e) =>
                setFilters({ ...filters, from: undefined, action: (e.target.value || undefined) as TAuditAction | undefined })
              }
            >
              <option value="">All actions</option>
              {Object.entries(ACTION_LABEL).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label className="compact-field">
            <span>Who</span>
            <select
              value={filters.userId ?? ''}
              onChange={(e) => setFilters({ ...filters, from: undefined, userId: e.target.value ? Number(e.target.value) : undefined })}
            >
              <option value="">Everyone</option>
              {users.data?.map((u) => (
                <option key={u.id} value={u.id}>
                  {visible(u.name)}
                </option>
              ))}
            </select>
          </label>
          <AuditSubjectFilter
            chosen={chosenSubject}
            onChoose={(choice) => {
              setPicked(choice);
              setFilters({ ...filters, from: undefined, subject: choice?.subject });
            }}
          />
          <HashFilter key={filters.hash ?? ''} hash={filters.hash} onFind={(hash) => setFilters({ ...filters, from: undefined, hash })} />
          {hasFilter && (
            <button type="button" className="button small ghost audit-clear" onClick={() => setFilters({})}>
              Show the whole trail
            </button>
          )}
        </div>
        {filters.from && (
          <p className="notice">
            Starting at event #{filters.from}, going back. <Link href="/audit">Show the newest first</Link>
          </p>
        )}
        {/* The first page says whether the trail is loading or could not be read; older pages add to it. */}
        <QueryStatus query={first} loading="Loading…" padded={false}>
          {() =>
            items.length === 0 ? (
              <p className="empty">{filters.hash ? 'No event you may see has a hash starting with that.' : 'No events match.'}</p>
            ) : narrow ? (
              <ol className="audit-list" aria-label="Audit events, newest first">
                {items.map((event) => (
                  <li key={event.id} data-action={event.action} data-event={event.id}>
                    <p className="audit-sentence">
                      {describeAuditEvent(event)}
                      <VerifiedExport event={event} />
                    </p>
                    <div className="audit-list-line muted">
                      <time dateTime={event.at.toISOString()}>{formatDateTime(event.at)}</time>
                      {event.ip && <> · from {addressOf(event.ip)}</>}
                    </div>
                    {event.subjectLink && (
                      <div className="audit-list-line">
                        About <AuditSubject event={event} />
                      </div>
                    )}
                    <div className="audit-list-line muted">
                      Event #{event.id} · hash <EntryHash event={event} />
                    </div>
                    <ExportHash detail={event.detail} />
                  </li>
                ))}
              </ol>
            ) : (
              <table className="audit-table">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">What happened</th>
                    <th scope="col">About</th>
                    <th scope="col">From</th>
                    <th scope="col">Event</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((event) => (
                    <tr key={event.id} data-action={event.action} data-event={event.id}>
                      <td className="audit-when">
                        <time dateTime={event.at.toISOString()}>{formatDateTime(event.at)}</time>
                      </td>
                      <td className="audit-sentence">
                        {describeAuditEvent(event)}
                        <VerifiedExport event={event} />
                        <ExportHash detail={event.detail} />
                      </td>
                      <td className="audit-about-cell">
                        <AuditSubject event={event} />
                      </td>
                      <td className="audit-ip">{event.ip ? addressOf(event.ip) : '—'}</td>
                      <td className="audit-entry">
                        #{event.id}
                        <br />
                        <EntryHash event={event} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </QueryStatus>
        {next !== null && (
          <button type="button" className="button ghost" onClick={() => setOlder({ key: filterKey, before: [...before, next] })}>
            Show older
          </button>
        )}
      </section>
    </div>
  );
}
