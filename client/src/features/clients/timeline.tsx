import { useRef, useState } from 'react';
import type { TCommunication } from '../../../../shared/communication';
import { formatDateTime } from '../../lib/format';
import { highlightIn } from '../../lib/highlight';
import type { TOlder } from '../../lib/older-pages';
import { MessageContent, ReactionChips, useQuotedOf } from '../conversation';
import { PhoneNumber } from '../../ui/phone-number';
import { STATUS_LABEL, StatusTicks } from '../../ui/status-ticks';
import { ErasedNote } from '../records';
import { RefileBar } from './refile-bar';

const TYPE_LABEL: Record<TCommunication['type'], string> = {
  chat: 'Chat',
  chat_note: 'Internal note',
  note: 'Note',
  call: 'Call',
  email: 'Email',
};

type TCase = { id: number; reference: string; title: string; status: 'open' | 'closed' };

/**
 * `filing`: a client's timeline says each record's case, and records can be chosen and moved to
 * another case (or to none) together.
 */
type TProps = {
  items: TCommunication[];
  older: TOlder;
  filing?: { clientId: number; cases: TCase[] };
  /** How the client was erased, when they were: each erased record says the same. */
  erasedBy?: 'request' | 'retention';
};

/**
 * Every record type, newest first, as the server returns them; chat records read as in the thread,
 * and a conversation's internal notes are marked as never sent to the client. Shown once loaded
 * (QueryStatus says meanwhile).
 */
export function Timeline({ items, older, filing, erasedBy }: TProps) {
  const listRef = useRef<HTMLOListElement>(null);
  const [selected, setSelected] = useState<number[]>([]);
  const toggle = (id: number) => setSelected((now) => (now.includes(id) ? now.filter((x) => x !== id) : [...now, id]));
  const caseOf = (item: TCommunication) => (item.caseId === null ? null : (filing?.cases.find((c) => c.id === item.caseId) ?? null));
  const quotedOf = useQuotedOf(items);
  const showRecord = (id: number) => highlightIn(listRef.current, id);
  if (!items.length) return <p className="empty">Nothing on the timeline yet.</p>;
  return (
    <>
      {filing && <RefileBar clientId={filing.clientId} cases={filing.cases} selected={selected} onDone={() => setSelected([])} />}
      <ol className="timeline" aria-label="Timeline" ref={listRef}>
        {items.map((item) => (
          <li key={item.id} className={`timeline-item type-${item.type}`} data-id={item.id}>
            <span className={`type-badge type-${item.type}`}>{TYPE_LABEL[item.type]}</span>
            <div className="timeline-body">
              <div className="timeline-meta">
                {filing && (
                  <input
                    type="checkbox"
                    className="timeline-select"
                    checked={selected.includes(item.id)}
                    onChange={() => toggle(item.id)}
                    aria-label={`Select the ${TYPE_LABEL[item.type].toLowerCase()} of ${formatDateTime(item.createdAt)}`}
                  />
                )}
                {filing && (
                  <span className="case-tag" title={caseOf(item)?.title}>
                    {caseOf(item)?.reference ?? 'No case'}
                  </span>
                )}
                {item.type === 'chat_note' && (
                  <span className="note-tag">Internal note · not sent to the client{item.sentBy ? ` · by ${item.sentBy.name}` : ''}</span>
                )}
                {item.direction && item.status === 'imported' ? (
                  // Who wrote it is the label's (MessageContent); it came through no number and has no receipts.
                  <span>{item.direction === 'inbound' ? "The client's side" : "The firm's side"}</span>
                ) : (
                  item.direction && (
                    <span>
                      {item.direction === 'inbound'
                        ? 'Received'
                        : item.sentBy
                          ? `Sent by ${item.sentBy.name}`
                          : item.metadata.echo
                            ? "Sent from the firm's phone"
                            : 'Sent'}
                    </span>
                  )
                )}
                {item.peerPhone && item.status !== 'imported' && <PhoneNumber value={item.peerPhone} />}
                <time dateTime={item.createdAt.toISOString()}>{formatDateTime(item.createdAt)}</time>
                {item.metadata.test && <span className="bubble-tag">Test message</span>}
                {item.status && item.status !== 'imported' && item.direction === 'outbound' && (
                  <span className={`status status-${item.status}`}>
                    <StatusTicks status={item.status} error={item.error} /> {STATUS_LABEL[item.status]}
                  </span>
                )}
              </div>
              {item.subject && <p className="timeline-subject">{item.subject}</p>}
              {item.metadata.erased_at && item.type !== 'chat' ? (
                // A note, call or e-mail whose content retention destroyed: the record stays, saying so.
                <ErasedNote erasedAt={item.metadata.erased_at} by={item.metadata.erased_by ?? erasedBy} className="timeline-text erased" />
              ) : item.type === 'chat_note' ? (
                <p className="timeline-text" role="note" aria-label="Internal note">
                  {item.body}
                </p>
              ) : item.type === 'chat' ? (
                <>
                  <MessageContent item={item} quoted={quotedOf(item)} onShowMessage={showRecord} echoLabel={false} />
                  {item.metadata.reactions && <ReactionChips reactions={item.metadata.reactions} showWho={false} />}
                </>
              ) : (
                item.body && <p className="timeline-text">{item.body}</p>
              )}
              {item.error && <p className="form-error">{item.error}</p>}
            </div>
          </li>
        ))}
      </ol>
      {older.hasMore && (
        <p className="list-more">
          {older.failed && <span className="form-error">Could not load older records. </span>}
          <button type="button" className="button ghost small" onClick={older.load} disabled={older.loading}>
            {older.loading ? 'Loading older records…' : 'Show older'}
          </button>
        </p>
      )}
    </>
  );
}
