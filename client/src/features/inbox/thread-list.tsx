import { Link } from 'wouter';
import { formatDateTime, formatWhen, usePhoneFormatter } from '../../lib/format';
import type { TOlder } from '../../lib/older-pages';
import { useLoadMore } from '../../lib/use-load-more';
import { threadPath, threadRefOf, type TThreadSummary } from '../../lib/trpc';
import { PhoneNumber } from '../../ui/phone-number';
import { StatusTicks, UnknownMark } from '../../ui/status-ticks';
import { AssignMenu, ThreadMarkers } from '../ownership';
import { clipPreview } from './preview-text';
import { threadTitle } from './thread-title';

/**
 * Conversations, each with its assignee's menu beside its link; the next page is asked for as the reader nears the end of the list (or by the
 * button). `linkQuery` keeps the list's filter in the address of the conversation opened.
 */
export function ThreadList({
  threads,
  activeKey,
  more,
  linkQuery = '',
}: {
  threads: TThreadSummary[];
  activeKey: string | null;
  more: TOlder;
  linkQuery?: string;
}) {
  const formatNumber = usePhoneFormatter();
  const sentinel = useLoadMore<HTMLLIElement>(() => {
    if (more.hasMore && !more.loading && !more.failed) more.load();
  }, more.hasMore);
  if (threads.length === 0) {
    return <p className="empty">No conversations yet. Messages from clients appear here as they arrive.</p>;
  }
  return (
    <ul className="thread-list" aria-label="Conversations">
      {threads.map((thread) => {
        const title = threadTitle(thread);
        const active = thread.key === activeKey;
        return (
          <li key={thread.key} className="thread-item">
            <Link
              href={threadPath({ clientId: thread.clientId, peerPhone: thread.phone }) + linkQuery}
              className={`thread-row${active ? ' active' : ''}${thread.unread > 0 ? ' unread' : ''}`}
              aria-current={active ? 'true' : undefined}
              data-thread={thread.key}
            >
              <span className={`avatar ${thread.clientId ? '' : 'unknown'}`} aria-hidden="true">
                {(thread.clientName ?? thread.contactName ?? '#').slice(0, 1)}
              </span>
              <span className="thread-main">
                <span className="thread-top">
                  <span className="thread-name">{title ?? <PhoneNumber value={thread.phone} />}</span>
                  <time
                    className="thread-time"
                    dateTime={thread.last.createdAt.toISOString()}
                    title={formatDateTime(thread.last.createdAt)}
                  >
                    {formatWhen(thread.last.createdAt)}
                  </time>
                </span>
                <span className="thread-bottom">
                  <span className="thread-preview">
                    {thread.last.direction === 'outbound' &&
                      thread.last.status &&
                      (thread.last.outcome === 'unknown' ? <UnknownMark /> : <StatusTicks status={thread.last.status} />)}
                    <span className="preview-text">{previewOf(thread.last)}</span>
                  </span>
                  {thread.unread > 0 && (
                    <span className="unread-badge" aria-label={`${thread.unread} unread`}>
                      {thread.unread}
                    </span>
                  )}
                </span>
                {/* The line the assignee's button sits on (beside the link, not in it). */}
                <span className="thread-tags">
                  {thread.match !== 'linked' && (
                    <span className={`match-flag ${thread.match}`}>
                      {thread.match === 'ambiguous'
                        ? `Matches ${thread.candidates.length} clients: link it`
                        : 'Unknown number: link to a client'}
                    </span>
                  )}
                  <ThreadMarkers thread={thread} />
                </span>
              </span>
            </Link>
            <AssignMenu
              threadRef={threadRefOf({ clientId: thread.clientId, peerPhone: thread.phone })}
              title={title ?? formatNumber(thread.phone)}
              assignee={thread.assignee}
            />
          </li>
        );
      })}
      {more.hasMore ? (
        <li ref={sentinel} className="list-more">
          {more.failed && <span className="form-error">Could not load more conversations. </span>}
          <button type="button" className="button ghost small" onClick={more.load} disabled={more.loading}>
            {more.loading ? 'Loading older conversations…' : 'Load older conversations'}
          </button>
        </li>
      ) : (
        threads.length > 20 && <li className="list-end muted">No older conversations.</li>
      )}
    </ul>
  );
}

const FILE_KIND: Partial<Record<string, string>> = {
  image: 'Photo',
  video: 'Video',
  audio: 'Audio',
  sticker: 'Sticker',
  document: 'Document',
};

/** The last message as a line: a file is named by what it is ("Photo · the letter", "lease.pdf"). */
function previewOf(last: { body: string; kind: string; fileName: string | null }): string {
  const file = FILE_KIND[last.kind] ? (last.fileName ?? FILE_KIND[last.kind]) : null;
  if (!file) return clipPreview(last.body);
  return clipPreview(last.body ? `${file} · ${last.body}` : file);
}
