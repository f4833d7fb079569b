import { useEffect, useRef } from 'react';
import { formatBytes } from '../../../../shared/media-limits';
import { formatDateTime } from '../../lib/format';
import { trpc, type TOutputs } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';

export type TBatch = TOutputs['retention']['batch'];
type TCounts = TBatch['counts'];

// The worker erases a batch in chunks of up to a second each (server/records/README.md "Records"): once a second is
// as often as anything on screen can change.
const POLL_MS = 1_000;

/** "12 records, 3 files (1.2 MB), 2 cases, 1 client" — the figures a director approves. */
export function describeCounts(counts: TCounts): string {
  return [
    plural(counts.records, 'record'),
    `${plural(counts.files, 'file')} (${formatBytes(counts.bytes)})`,
    plural(counts.cases, 'case'),
    plural(counts.clients, 'client'),
  ].join(', ');
}

export function plural(n: number, word: string): string {
  return `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;
}

export const certificateUrl = (batchId: string, format: 'pdf' | 'json') => `/api/retention/${batchId}.${format}`;

/** A batch followed from approval to its certificate: read again every second while it is being destroyed. */
export function useBatch(batchId: string) {
  return trpc.retention.batch.useQuery(
    { batchId },
    { refetchInterval: (query) => (query.state.data?.state === 'approved' ? POLL_MS : false), staleTime: 0 },
  );
}

/** An approved batch's progress, then what it destroyed and its certificate. */
export function BatchOutcome({ batchId }: { batchId: string }) {
  const batch = useBatch(batchId);
  useReadAgainWhenDone(batch.data?.state);
  return (
    <QueryStatus query={batch} loading="Reading the batch…" padded={false}>
      {(b) => <BatchState batch={b} />}
    </QueryStatus>
  );
}

/**
 * A batch seen being destroyed and now done: what it changed is read again — the history's row, the
 * erasure requests (an erased client's name is gone), clients and cases.
 */
function useReadAgainWhenDone(state: TBatch['state'] | undefined) {
  const utils = trpc.useUtils();
  const sawApproved = useRef(false);
  useEffect(() => {
    if (state === 'approved') sawApproved.current = true;
    if (state !== 'done' || !sawApproved.current) return;
    sawApproved.current = false;
    void utils.retention.batches.invalidate();
    void utils.erasure.list.invalidate();
    void utils.clients.invalidate();
    void utils.cases.invalidate();
  }, [state, utils]);
}

function BatchState({ batch }: { batch: TBatch }) {
  if (batch.state === 'approved') return <BatchProgress progress={batch.progress} />;
  if (batch.state !== 'done') return null;
  return (
    <div className="batch-finished" role="status">
      <p>
        <strong>Destroyed:</strong> {plural(batch.erased.records, 'record')}, {plural(batch.erased.files, 'file')} (
        {formatBytes(batch.erased.bytes)}){batch.finishedAt ? ` on ${formatDateTime(batch.finishedAt)}` : ''}.{' '}
        {batch.leftOut > 0 ? `Left out: ${batch.leftOut.toLocaleString()} (held or changed since the preview).` : 'Nothing was left out.'}
      </p>
      <CertificateLinks batchId={batch.id} sha256={batch.certificateSha256} />
    </div>
  );
}

/** Items dealt with of all of them, as a bar a screen reader reads as a percentage too. */
export function BatchProgress({ progress }: { progress: TBatch['progress'] }) {
  const percent = progress.total ? Math.round((progress.done / progress.total) * 100) : 0;
  return (
    <div className="batch-progress">
      <p className="muted small">
        Destroying… {progress.done.toLocaleString()} of {progress.total.toLocaleString()} items
      </p>
      <div
        className="progress-track"
        role="progressbar"
        aria-label="Destruction progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}% (${progress.done} of ${progress.total} items)`}
      >
        <span className="progress-fill" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

/** The certificate's two forms and its fingerprint, in full (it is compared character by character). */
export function CertificateLinks({ batchId, sha256 }: { batchId: string; sha256: string | null }) {
  return (
    <div className="certificate">
      <p className="button-row">
        <a className="button small" href={certificateUrl(batchId, 'pdf')} download>
          Certificate (PDF)
        </a>
        <a className="button small" href={certificateUrl(batchId, 'json')} download>
          Certificate (JSON)
        </a>
      </p>
      {sha256 && (
        <p className="certificate-hash">
          <span className="muted small">SHA-256 of the JSON certificate </span>
          <code data-testid="certificate-sha256">{sha256}</code>
        </p>
      )}
    </div>
  );
}
