import { trpc } from '../../lib/trpc';
import { certificateUrl } from './batch-view';
import { erasedText, type TErasedBy } from './erased-note';

type TErasure = { by: TErasedBy; batchId: string; requestId: number | null };

/**
 * An erased client's page says how they were erased, and is read-only (server/records/README.md "Records"):
 * directors, who may read certificates, get its links and the request it answered.
 */
export function ErasedClientPanel({ erasedAt, erasure }: { erasedAt: Date; erasure: TErasure | null }) {
  const isDirector = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data?.role === 'director';
  return (
    <section className="erased-client-panel" aria-label="Erased client">
      <p>
        <strong>{erasedText(erasedAt, erasure?.by)}.</strong> Their name, numbers and records are gone; this page is read-only.
      </p>
      {erasure && isDirector && (
        <p className="button-row">
          <a className="button small" href={certificateUrl(erasure.batchId, 'pdf')} download>
            Destruction certificate (PDF)
          </a>
          <a className="button small ghost" href={certificateUrl(erasure.batchId, 'json')} download>
            Certificate (JSON)
          </a>
          {erasure.requestId !== null && <span className="muted small">Erasure request #{erasure.requestId}</span>}
        </p>
      )}
    </section>
  );
}
