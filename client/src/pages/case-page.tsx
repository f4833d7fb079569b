import { Link } from 'wouter';
import { DocumentsList } from '../components/documents-list';
import { ExportChat } from '../components/export-chat';
import { Timeline } from '../components/timeline';
import { olderOf, TIMELINE_PAGE } from '../lib/older-pages';
import { trpc } from '../lib/trpc';

export function CasePage({ caseId }: { caseId: number }) {
  const found = trpc.cases.get.useQuery({ caseId });
  const client = trpc.clients.get.useQuery({ clientId: found.data?.clientId ?? 0 }, { enabled: Boolean(found.data) });
  const timeline = trpc.timeline.case.useInfiniteQuery(
    { caseId, limit: TIMELINE_PAGE },
    { getNextPageParam: (page) => page.nextCursor ?? undefined },
  );
  if (found.isPending)
    return (
      <p className="muted" role="status">
        Loading case…
      </p>
    );
  if (found.isError)
    return (
      <p className="form-error" role="alert">
        {found.error.message}
      </p>
    );
  return (
    <div className="page">
      <nav className="breadcrumbs" aria-label="Breadcrumb">
        <Link href="/clients">Clients</Link> /{' '}
        {client.data ? <Link href={`/clients/${client.data.id}`}>{client.data.name}</Link> : <span>…</span>} /{' '}
        <span>{found.data.reference}</span>
      </nav>
      <div className="page-header">
        <div>
          <h1>{found.data.title}</h1>
          <p className="muted">
            {found.data.reference} · <span className={`case-status case-${found.data.status}`}>{found.data.status}</span>
          </p>
        </div>
        <Link href={`/inbox/client/${found.data.clientId}?case=${found.data.id}`} className="button primary">
          Message
        </Link>
      </div>
      <section className="card" aria-labelledby="case-timeline-title">
        <h2 id="case-timeline-title">Case timeline</h2>
        <Timeline
          items={timeline.data?.pages.flatMap((page) => page.items)}
          isPending={timeline.isPending}
          error={timeline.error?.message}
          older={olderOf(timeline)}
        />
      </section>
      <section className="card" aria-labelledby="case-documents-title">
        <h2 id="case-documents-title">Documents</h2>
        <DocumentsList where={{ caseId }} />
      </section>
      <section className="card" aria-labelledby="case-export-title">
        <h2 id="case-export-title">Export the chat</h2>
        <ExportChat scope="case" id={caseId} />
      </section>
    </div>
  );
}
