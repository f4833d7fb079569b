import { formatDateTime } from '../../lib/format';
import type { TThreadItem } from '../../lib/trpc';
import { NoteText } from '../ownership';
import type { TMeasure } from './message-list';

/**
 * An internal note in the conversation: a card across the thread, in the note colour, saying it was
 * not sent — never a bubble that could pass for a message the client got. No ticks, no receipts, no
 * Retry: a note is never sent anywhere.
 */
export function NoteCard({
  measure,
  item,
  author,
  mentionedNames,
  mentionsMe,
}: {
  measure?: TMeasure;
  item: TThreadItem;
  /** Who wrote it, as the thread says people ("You", or the colleague's name). */
  author: string;
  mentionedNames: string[];
  mentionsMe: boolean;
}) {
  return (
    <li {...measure} className="note-row" data-id={item.id}>
      <div className={`note-card${mentionsMe ? ' mentions-me' : ''}`} role="note" aria-label="Internal note">
        <p className="note-head">
          <span className="note-tag">Internal note · not sent to the client</span>
          <span className="note-who">
            {author} · <time dateTime={item.createdAt.toISOString()}>{formatDateTime(item.createdAt)}</time>
          </span>
        </p>
        <NoteText body={item.body} names={mentionedNames} />
      </div>
    </li>
  );
}
