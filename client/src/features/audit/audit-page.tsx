import { useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { AuditEvents } from './audit-events-view';
import { readAuditFilters, writeAuditFilters, type TAuditFilters } from './audit-filters';
import { AuditFiltersBar } from './audit-filters-bar';
import type { TChosenSubject } from './audit-subject-filter';
import { AuditTrailHead } from './audit-trail-head';
import { VerifyCopy } from './verify-copy';

const PAGE = 50;

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
        <AuditFiltersBar filters={filters} setFilters={setFilters} chosenSubject={chosenSubject} onChooseSubject={setPicked} />
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
            ) : (
              <AuditEvents items={items} />
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
