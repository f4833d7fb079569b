import { formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { certificateUrl, plural, type TBatch } from './batch-view';

const STATE_LABEL: Record<TBatch['state'], string> = {
  previewed: 'Previewed, not approved',
  approved: 'Being destroyed',
  done: 'Destroyed',
  superseded: 'Replaced by a newer preview',
};

// Read again while one is being destroyed, so its row turns to Destroyed without a reload.
const POLL_MS = 2_000;

/** The latest batches, newest first: what was previewed, who approved what, and each certificate. */
export function BatchHistory() {
  const batches = trpc.retention.batches.useQuery(undefined, {
    refetchInterval: (query) => (query.state.data?.some((b) => b.state === 'approved') ? POLL_MS : false),
  });
  return (
    <div className="batch-history">
      <h3 id="batch-history-title">Past batches</h3>
      <QueryStatus query={batches} loading="Loading past batches…" padded={false}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted small">No batch has been previewed yet.</p>
          ) : (
            <div className="table-scroll">
              <table className="records-table" aria-labelledby="batch-history-title">
                <thead>
                  <tr>
                    <th scope="col">Previewed</th>
                    <th scope="col">What</th>
                    <th scope="col">State</th>
                    <th scope="col">Approved</th>
                    <th scope="col">Contents</th>
                    <th scope="col">Certificate</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((b) => (
                    <tr key={b.id} data-batch={b.id} data-state={b.state}>
                      <td className="nowrap">
                        <time dateTime={b.createdAt.toISOString()}>{formatDateTime(b.createdAt)}</time>
                      </td>
                      <td>{b.kind === 'retention' ? 'Retention' : 'Erasure request'}</td>
                      <td>
                        <span className={`batch-state batch-${b.state}`}>{STATE_LABEL[b.state]}</span>
                      </td>
                      <td data-label="Approved">
                        {b.approvedAt ? (
                          <>
                            {b.approvedBy?.name ?? 'Former user'}
                            <span className="muted small"> · {formatDateTime(b.approvedAt)}</span>
                          </>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                      <td data-label="Contents">
                        {b.state === 'done' ? (
                          <>
                            {plural(b.erased.records, 'record')}, {plural(b.erased.files, 'file')} destroyed
                            {b.leftOut > 0 && <span className="muted small"> · {b.leftOut.toLocaleString()} left out</span>}
                          </>
                        ) : (
                          <>
                            {plural(b.counts.records, 'record')}, {plural(b.counts.files, 'file')}, {plural(b.counts.cases, 'case')},{' '}
                            {plural(b.counts.clients, 'client')}
                          </>
                        )}
                      </td>
                      <td className="nowrap" data-label="Certificate">
                        {b.state === 'done' ? (
                          <>
                            <a
                              href={certificateUrl(b.id, 'pdf')}
                              download
                              aria-label={`Certificate of ${formatDateTime(b.createdAt)} (PDF)`}
                            >
                              PDF
                            </a>{' '}
                            ·{' '}
                            <a
                              href={certificateUrl(b.id, 'json')}
                              download
                              aria-label={`Certificate of ${formatDateTime(b.createdAt)} (JSON)`}
                            >
                              JSON
                            </a>
                          </>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryStatus>
    </div>
  );
}
