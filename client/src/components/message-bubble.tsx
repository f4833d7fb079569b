import { WINDOW_CLOSED_PREFIX } from '../../../shared/provider-messages';
import type { TMeasure } from './message-list';
import { formatDateTime } from '../lib/format';
import type { TThreadItem } from '../lib/trpc';
import { MessageContent, type TQuoted } from './message-content';
import { PhoneNumber } from './phone-number';
import { ReactionChips } from './reaction-chips';
import { StatusTicks } from './status-ticks';

/**
 * `number` (and the sender's profile `contactName`): shown when the conversation is with more than
 * one number — which one wrote, which one was sent to.
 */
type TProps = {
  /** Given by a virtualised list: its row index and size observer. */
  measure?: TMeasure;
  item: TThreadItem;
  number?: string | null;
  contactName?: string | null;
  onRetry?: (id: number) => void;
  /** Refused for the 24-hour window: offer an approved template right there. */
  onUseTemplate?: () => void;
  retrying?: boolean;
  /** The message this one answers, when it is in the thread (null: not loaded; undefined: not a reply). */
  quoted?: TQuoted | null;
  onShowMessage?: (id: number) => void;
};

export function MessageBubble({ measure, item, number, contactName, onRetry, onUseTemplate, retrying, quoted, onShowMessage }: TProps) {
  const windowClosed = item.status === 'failed' && Boolean(item.error?.startsWith(WINDOW_CLOSED_PREFIX));
  const outbound = item.direction === 'outbound';
  const when = item.providerTimestamp ?? item.createdAt;
  return (
    <li {...measure} className={`bubble-row ${outbound ? 'out' : 'in'}`} data-id={item.id} data-status={item.status ?? undefined}>
      <div className={`bubble ${outbound ? 'out' : 'in'} ${item.status === 'failed' ? 'failed' : ''}`}>
        <MessageContent item={item} quoted={quoted} onShowMessage={onShowMessage} />
        <span className="bubble-meta">
          {number && (
            <span className="bubble-number">
              {outbound ? 'to' : 'from'} {!outbound && contactName ? `~${contactName} ` : ''}
              <PhoneNumber value={number} /> ·
            </span>
          )}
          {outbound && (item.sentBy || item.metadata.echo) && <span className="bubble-sender">{item.sentBy?.name ?? "Firm's phone"} ·</span>}
          <time dateTime={when.toISOString()}>{formatDateTime(when)}</time>
          {outbound && item.status && <StatusTicks status={item.status} receipts={item.receipts} error={item.error} />}
        </span>
      </div>
      {item.metadata.reactions && <ReactionChips reactions={item.metadata.reactions} showWho={Boolean(number)} />}
      {item.status === 'failed' && (
        <div className="bubble-error" role="alert">
          <span>{item.error ?? 'Not delivered.'}</span>
          {windowClosed && onUseTemplate && (
            <button type="button" className="button small primary" onClick={onUseTemplate}>
              Send an approved template
            </button>
          )}
          {onRetry && item.id > 0 && !windowClosed && (
            <button type="button" className="button small" onClick={() => onRetry(item.id)} disabled={retrying}>
              {retrying ? 'Retrying…' : 'Retry'}
            </button>
          )}
        </div>
      )}
    </li>
  );
}
