import type { TCommunication } from '../../../shared/communication';
import { formatDateTime } from '../lib/format';
import { fileLabel, mediaUrl, shortType } from './attachment-view';
import { PhoneNumber } from './phone-number';
import { STATUS_LABEL, StatusTicks } from './status-ticks';

const TYPE_LABEL: Record<TCommunication['type'], string> = { chat: 'Chat', note: 'Note', call: 'Call', email: 'Email' };


type TProps = { items: TCommunication[] | undefined; isPending: boolean; error?: string | null };

/** Every record type, newest first, as the server returns them. */
export function Timeline({ items, isPending, error }: TProps) {
  if (isPending) return <p className="muted" role="status">Loading timeline…</p>;
  if (error) return <p className="form-error" role="alert">{error}</p>;
  if (!items?.length) return <p className="empty">Nothing on the timeline yet.</p>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {items.map((item) => (
        <li key={item.id} className={`timeline-item type-${item.type}`}>
          <span className={`type-badge type-${item.type}`}>{TYPE_LABEL[item.type]}</span>
          <div className="timeline-body">
            <div className="timeline-meta">
              {item.direction && <span>{item.direction === 'inbound' ? 'Received' : item.sentBy ? `Sent by ${item.sentBy.name}` : item.metadata.echo ? "Sent from the firm's phone" : 'Sent'}</span>}
              {item.peerPhone && <PhoneNumber value={item.peerPhone} />}
              <time dateTime={item.createdAt.toISOString()}>{formatDateTime(item.createdAt)}</time>
              {item.status && item.direction === 'outbound' && (
                <span className={`status status-${item.status}`}>
                  <StatusTicks status={item.status} error={item.error} /> {STATUS_LABEL[item.status]}
                </span>
              )}
            </div>
            {item.subject && <p className="timeline-subject">{item.subject}</p>}
            {item.attachments.map((a) => (
              <p key={a.id} className="timeline-file">
                {a.state === 'stored' ? (
                  <a href={mediaUrl(a.id)} download>
                    {fileLabel(a)}
                  </a>
                ) : (
                  fileLabel(a)
                )}{' '}
                <span className="muted">({shortType(a.mimeType)}{a.state === 'stored' ? '' : a.state === 'pending' ? ', downloading…' : ', could not download'})</span>
              </p>
            ))}
            {item.body && <p className="timeline-text">{item.body}</p>}
            {item.error && <p className="form-error">{item.error}</p>}
          </div>
        </li>
      ))}
    </ol>
  );
}
