import { formatBytes } from '../../../../shared/media-limits';
import { formatDate, formatDateTime } from '../../lib/format';
import { trpc, type TOutputs } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { fileLabel, kindLabel, mediaUrl, shortType } from '../../lib/attachment-file';

type TDocument = TOutputs['timeline']['documents']['items'][number];

/** Every file on a client's or a case's chat records: what the firm holds, to open or download. */
export function DocumentsList({ where }: { where: { clientId: number } | { caseId: number } }) {
  const documents = trpc.timeline.documents.useQuery(where);
  return (
    <QueryStatus query={documents} loading="Loading documents…" padded={false}>
      {({ items }) => <DocumentsTable items={items} />}
    </QueryStatus>
  );
}

export function DocumentsTable({ items }: { items: TDocument[] }) {
  if (!items.length) return <p className="empty">No files yet. Photos, documents and voice notes sent in the chat appear here.</p>;
  return (
    <div className="table-scroll">
      <table className="documents-table">
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Kind</th>
            <th scope="col">Size</th>
            <th scope="col">Direction</th>
            <th scope="col">Date</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {items.map((doc) => (
            <tr key={doc.id} data-state={doc.state}>
              <td className="document-name" title={fileLabel(doc)}>
                {doc.fileName !== null ? fileLabel(doc) : kindLabel(doc.kind)}
              </td>
              <td>
                {kindLabel(doc.kind)} <span className="muted">{shortType(doc.mimeType)}</span>
              </td>
              <td>{doc.size !== null ? formatBytes(doc.size) : '—'}</td>
              <td>{doc.direction === 'inbound' ? 'From client' : 'Sent by firm'}</td>
              <td>
                <time dateTime={doc.createdAt.toISOString()} title={formatDateTime(doc.createdAt)}>
                  {formatDate(doc.createdAt)}
                </time>
              </td>
              <td>
                {doc.erasedAt ? (
                  <span className="muted">File erased {formatDate(doc.erasedAt)}</span>
                ) : doc.state === 'stored' ? (
                  <a href={mediaUrl(doc.id)} download aria-label={`Download ${fileLabel(doc)}`}>
                    Download
                  </a>
                ) : doc.state === 'pending' ? (
                  <span className="muted">Downloading…</span>
                ) : (
                  <span className="status-failed">
                    Could not download
                    {doc.error && <span className="document-error">{doc.error}</span>}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
