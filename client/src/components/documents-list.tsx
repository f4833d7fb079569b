import { formatBytes } from '../../../shared/media-limits';
import { formatDateTime } from '../lib/format';
import { trpc } from '../lib/trpc';
import { fileLabel, mediaUrl, shortType } from './attachment-view';

const STATE_LABEL = { pending: 'Downloading…', stored: null, failed: 'Could not download' } as const;

/** Every file on a client's or a case's chat records: what the firm holds, to open or download. */
export function DocumentsList({ where }: { where: { clientId: number } | { caseId: number } }) {
  const documents = trpc.timeline.documents.useQuery(where);
  if (documents.isPending) return <p className="muted" role="status">Loading documents…</p>;
  if (documents.isError) return <p className="form-error" role="alert">{documents.error.message}</p>;
  if (!documents.data.items.length) return <p className="empty">No files yet. Photos, documents and voice notes sent in the chat appear here.</p>;
  return (
    <table className="documents-table">
      <thead>
        <tr>
          <th scope="col">File</th>
          <th scope="col">Type</th>
          <th scope="col">Size</th>
          <th scope="col">From</th>
          <th scope="col">Date</th>
          <th scope="col">
            <span className="visually-hidden">Download</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {documents.data.items.map((doc) => (
          <tr key={doc.id}>
            <td className="document-name">{fileLabel(doc)}</td>
            <td>{shortType(doc.mimeType)}</td>
            <td>{doc.size !== null ? formatBytes(doc.size) : '—'}</td>
            <td>{doc.direction === 'inbound' ? 'Client' : 'Firm'}</td>
            <td>
              <time dateTime={doc.createdAt.toISOString()}>{formatDateTime(doc.createdAt)}</time>
            </td>
            <td>
              {doc.state === 'stored' ? (
                <a href={mediaUrl(doc.id)} download aria-label={`Download ${fileLabel(doc)}`}>
                  Download
                </a>
              ) : (
                <span className={doc.state === 'failed' ? 'status-failed' : 'muted'} title={doc.error ?? undefined}>
                  {STATE_LABEL[doc.state]}
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
