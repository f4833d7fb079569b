import { useId, useState } from 'react';
import { Link } from 'wouter';
import { UNKNOWN_OUTCOME_PREFIX, WINDOW_CLOSED_PREFIX } from '../../../../shared/provider-messages';
import { formatDateTime } from '../../lib/format';
import type { TThreadItem } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { PhoneNumber } from '../../ui/phone-number';
import { STATUS_LABEL, UNKNOWN_LABEL, UnknownMark } from '../../ui/status-ticks';
import type { TMeasure } from './message-list';
import { MessageContent, type TQuoted } from './message-content';
import { BubbleReactions } from './bubble-reactions';
import { QuestionButtons } from './question-buttons';
import { ReceiptSteps, ReceiptToggle } from './receipt-details';

const AUTO_REPLY_LABEL = 'Automatic reply · outside business hours';

/** The case a record is filed on, as its picker shows it. */
export type TFiledCase = { id: number; reference: string; title: string };

/**
 * `number` (and the sender's profile `contactName`): shown when the conversation is with more than
 * one number — which one wrote, which one was sent to.
 */
type TProps = {
  /** Given by a virtualised list: its row index and size observer. */
  measure?: TMeasure;
  item: TThreadItem;
  /** Who a screen reader says wrote it: the contact's name, "You", or a colleague's name. */
  speaker: string;
  number?: string | null;
  /** The label of the firm's number it went through, when the firm has several. */
  firmNumber?: string | null;
  contactName?: string | null;
  /** The case it is filed on (null: none, or not one of this client's cases loaded). */
  filedOn?: TFiledCase | null;
  /** `confirm`: resending one that may already have reached them, as the person agreed. */
  onRetry?: (id: number, confirm: boolean) => void;
  /** Refused for the 24-hour window: offer an approved template right there. */
  onUseTemplate?: () => void;
  retrying?: boolean;
  /** The message this one answers, when it is in the thread (null: not loaded; undefined: not a reply). */
  quoted?: TQuoted | null;
  onShowMessage?: (id: number) => void;
};

export function MessageBubble({
  measure,
  item,
  speaker,
  number,
  firmNumber,
  contactName,
  filedOn,
  onRetry,
  onUseTemplate,
  retrying,
  quoted,
  onShowMessage,
}: TProps) {
  const windowClosed = item.status === 'failed' && Boolean(item.error?.startsWith(WINDOW_CLOSED_PREFIX));
  // The provider's answer was lost: it may have gone, so it shows neither a clock nor a failure.
  const unknownOutcome = item.status === 'pending' && item.metadata.outcome === 'unknown';
  const outbound = item.direction === 'outbound';
  const when = item.providerTimestamp ?? item.createdAt;
  const resentAs = item.metadata.resent_as;
  const [receiptsOpen, setReceiptsOpen] = useState(false);
  const receiptsId = useId();
  // The firm's automatic reply outside business hours (server/messaging/README.md "Business hours") is nobody's: it says
  // what it is where a person's name would be, to the eye and to a screen reader.
  const autoReply = outbound && item.metadata.auto_reply === true;
  const who = autoReply ? AUTO_REPLY_LABEL : speaker;
  const buttons = item.metadata.buttons;
  return (
    <li
      {...measure}
      className={`bubble-row ${outbound ? 'out' : 'in'}`}
      data-id={item.id}
      data-status={item.status ?? undefined}
      data-outcome={unknownOutcome ? 'unknown' : undefined}
      data-auto-reply={autoReply || undefined}
    >
      <div className={`bubble ${outbound ? 'out' : 'in'} ${item.status === 'failed' ? 'failed' : ''} ${unknownOutcome ? 'unknown' : ''}`}>
        {/* Read first by a screen reader: who, when and (for the firm's) how far it got. */}
        <span className="visually-hidden">
          {who}, {formatDateTime(when)}
          {outbound && item.status ? `, ${(unknownOutcome ? UNKNOWN_LABEL : STATUS_LABEL[item.status]).toLowerCase()}` : ''}:{' '}
        </span>
        {item.metadata.test && <span className="bubble-tag">Test message</span>}
        <MessageContent item={item} quoted={quoted} onShowMessage={onShowMessage} />
        {buttons && buttons.length > 0 && <QuestionButtons buttons={buttons} />}
        {filedOn && (
          <Link href={`/cases/${filedOn.id}`} className="bubble-case" title={filedOn.title}>
            <span className="visually-hidden">Filed on </span>
            {filedOn.reference} · {filedOn.title}
          </Link>
        )}
        <span className="bubble-meta">
          {firmNumber && (
            <span className="bubble-firm-number" data-testid="firm-number">
              {outbound ? 'from' : 'to'} {firmNumber} ·
            </span>
          )}
          {number && (
            <span className="bubble-number">
              {outbound ? 'to' : 'from'} {!outbound && contactName ? `~${contactName} ` : ''}
              <PhoneNumber value={number} /> ·
            </span>
          )}
          {autoReply ? (
            <span className="bubble-sender auto-reply" aria-hidden="true">
              {AUTO_REPLY_LABEL} ·
            </span>
          ) : (
            outbound &&
            (item.sentBy || item.metadata.echo) && (
              <span className="bubble-sender" aria-hidden="true">
                {item.sentBy?.name ?? "Firm's phone"} ·
              </span>
            )
          )}
          <time dateTime={when.toISOString()} aria-hidden="true">
            {formatDateTime(when)}
          </time>
          {/* With READ_RECEIPTS on, the firm marked it read on the client's phone (their ticks turned blue). */}
          {!outbound && item.metadata.marked_read_at && (
            <span
              className="bubble-read-mark"
              title={`Marked read on their phone ${formatDateTime(new Date(item.metadata.marked_read_at))}`}
            >
              · read on their phone
            </span>
          )}
          {unknownOutcome ? (
            <UnknownMark />
          ) : (
            outbound &&
            item.status &&
            item.status !== 'imported' && (
              <ReceiptToggle
                status={item.status}
                receipts={item.receipts}
                error={item.error}
                open={receiptsOpen}
                onToggle={() => setReceiptsOpen((o) => !o)}
                listId={receiptsId}
              />
            )
          )}
        </span>
        {receiptsOpen && <ReceiptSteps receipts={item.receipts} id={receiptsId} />}
      </div>
      {(item.metadata.reactions?.length || !outbound) && <BubbleReactions item={item} speaker={speaker} showWho={Boolean(number)} />}
      {unknownOutcome && (
        <div className="bubble-error unknown">
          <span>May not have been sent — the provider&rsquo;s answer was lost</span>
          {resentAs !== undefined ? (
            <ResentNote resentAs={resentAs} onShowMessage={onShowMessage} />
          ) : (
            onRetry && (
              <ConfirmButton
                label="Retry"
                question="It may have reached them already. Send it again?"
                confirmLabel="Send again"
                pending={Boolean(retrying)}
                onConfirm={() => onRetry(item.id, true)}
              />
            )
          )}
        </div>
      )}
      {item.status === 'failed' && (
        // Not an alert: opening a thread with failed messages must not interrupt once per message
        // (a failure as it happens is announced by its toast).
        <div className="bubble-error">
          <span>{item.error ?? 'Not delivered.'}</span>
          {resentAs !== undefined ? (
            <ResentNote resentAs={resentAs} onShowMessage={onShowMessage} />
          ) : (
            <>
              {windowClosed && onUseTemplate && (
                <button type="button" className="button small primary" onClick={onUseTemplate}>
                  Send an approved template
                </button>
              )}
              {onRetry && item.id > 0 && !windowClosed && <RetryButton item={item} onRetry={onRetry} retrying={Boolean(retrying)} />}
            </>
          )}
        </div>
      )}
    </li>
  );
}

function ResentNote({ resentAs, onShowMessage }: { resentAs: number; onShowMessage?: (id: number) => void }) {
  return (
    <span className="bubble-resent">
      Resent ·{' '}
      <button type="button" className="link-button" onClick={() => onShowMessage?.(resentAs)}>
        show the new copy
      </button>
    </span>
  );
}

/**
 * Retry; asked twice when the first attempt may have reached them (a failed record from before
 * unknown outcomes were kept pending says so in its error).
 */
function RetryButton({
  item,
  onRetry,
  retrying,
}: {
  item: TThreadItem;
  onRetry: (id: number, confirm: boolean) => void;
  retrying: boolean;
}) {
  if (item.error?.startsWith(UNKNOWN_OUTCOME_PREFIX)) {
    return (
      <ConfirmButton
        label="Retry"
        question="It may have reached them already. Send it again?"
        confirmLabel="Send again"
        pending={retrying}
        onConfirm={() => onRetry(item.id, true)}
      />
    );
  }
  return (
    <button type="button" className="button small" onClick={() => onRetry(item.id, false)} disabled={retrying}>
      {retrying ? 'Retrying…' : 'Retry'}
    </button>
  );
}
