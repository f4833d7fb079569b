import { Link } from 'wouter';
import { formatDate } from '../../lib/format';
import { olderOf, TIMELINE_PAGE } from '../../lib/older-pages';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { AccessGone, AccessPanel, goneOf, LockMark, retryUnlessNotFound } from '../access';
import { CaseStatusButton, erasedText, HoldBanner } from '../records';
import { DocumentsList } from './documents-list';
import { ExportChat } from './export-chat';
import { Timeline } from './timeline';

export function CasePage({ caseId }: { caseId: number }) {
  // NOT_FOUND is not asked again: a person walled from the case sees that at once.
  const found = trpc.cases.get.useQuery({ caseId }, { retry: retryUnlessNotFound });
  const client = trpc.clients.get.useQuery({ clientId: found.data?.clientId ?? 0 }, { enabled: Boolean(found.data) });
  const timeline = trpc.timeline.case.useInfiniteQuery(
    { caseId, limit: TIMELINE_PAGE },
    { getNextPageParam: (page) => page.nextCursor ?? undefined },
  );
  // Not found, or walled off while open (server/access/README.md "Ethical walls"): nothing of the case stays on screen.
  const gone = goneOf(found);
  if (gone) {
    // Lost while open, its client is known: back there (the client page says so in turn if that is walled too).
    const back = found.data
      ? { href: `/clients/${found.data.clientId}`, label: 'Back to the client' }
      : { href: '/clients', label: 'Back to clients' };
    return (
      <div className="page">
        <AccessGone gone={gone} what="case" back={back} />
      </div>
    );
  }
  return (
    <QueryStatus query={found} loading="Loading case…" padded={false}>
      {(theCase) => (
        <div className="page">
          <nav className="breadcrumbs" aria-label="Breadcrumb">
            <Link href="/clients">Clients</Link> /{' '}
            {client.data ? <Link href={`/clients/${client.data.id}`}>{client.data.name}</Link> : <span>…</span>} /{' '}
            <span>{theCase.reference}</span>
          </nav>
          <div className="page-header">
            <div>
              {/* An erased case's title is gone: what stands in its place says when and why. */}
              <h1 className={`title-with-mark${theCase.erasedAt ? ' erased-title' : ''}`}>
                {theCase.erasedAt ? erasedText(theCase.erasedAt) : theCase.title}
                {theCase.restricted && <LockMark />}
              </h1>
              <p className="muted">
                {theCase.reference} ·{' '}
                {theCase.status === 'closed' && theCase.closedAt ? (
                  <span className="case-status case-closed closed-on">Closed on {formatDate(theCase.closedAt)}</span>
                ) : (
                  <span className={`case-status case-${theCase.status}`}>{theCase.status}</span>
                )}
              </p>
            </div>
            <div className="button-row">
              {!theCase.erasedAt && <CaseStatusButton theCase={theCase} />}
              <Link href={`/inbox/client/${theCase.clientId}?case=${theCase.id}`} className="button primary">
                Message
              </Link>
            </div>
          </div>
          {!theCase.erasedAt && <HoldBanner subject={{ caseId, clientId: theCase.clientId }} notice={theCase.hold} />}
          <section className="card" aria-labelledby="case-timeline-title">
            <h2 id="case-timeline-title">Case timeline</h2>
            <QueryStatus query={timeline} loading="Loading timeline…" padded={false}>
              {({ pages }) => <Timeline items={pages.flatMap((page) => page.items)} older={olderOf(timeline)} />}
            </QueryStatus>
          </section>
          <section className="card" aria-labelledby="case-documents-title">
            <h2 id="case-documents-title">Documents</h2>
            <DocumentsList where={{ caseId }} />
          </section>
          <AccessPanel subject={{ caseId }} />
          <section className="card" aria-labelledby="case-export-title">
            <h2 id="case-export-title">Export the chat</h2>
            <ExportChat scope="case" id={caseId} />
          </section>
        </div>
      )}
    </QueryStatus>
  );
}
