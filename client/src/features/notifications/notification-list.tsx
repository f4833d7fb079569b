import { Link } from 'wouter';
import { formatDateTime, formatWhen } from '../../lib/format';
import { olderOf } from '../../lib/older-pages';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { describeNotification, kindLabel, notificationPath } from './notification-text';

const PAGE = 20;

/**
 * The person's notifications, newest first (20 at a time, Show older for more): unread ones marked.
 * Opening one marks it read; Mark all read marks every one, loaded or not.
 */
export function NotificationList({ myId, unread, onOpenOne }: { myId: number; unread: number; onOpenOne: () => void }) {
  const utils = trpc.useUtils();
  const list = trpc.notifications.list.useInfiniteQuery({ limit: PAGE }, { getNextPageParam: (page) => page.nextCursor ?? undefined });
  const markRead = trpc.notifications.markRead.useMutation({ onSuccess: () => void utils.notifications.invalidate() });
  // Never disabled, only inert when there is nothing to mark (or it is on its way): a button that
  // disables itself under the focus drops it to the page's body, out of the panel.
  const nothingToMark = unread === 0 || markRead.isPending;
  return (
    <>
      <div className="notifications-head">
        <h2>Notifications</h2>
        <button
          type="button"
          className="button small ghost"
          onClick={() => {
            if (!nothingToMark) markRead.mutate({ all: true });
          }}
          aria-disabled={nothingToMark || undefined}
        >
          Mark all read
        </button>
      </div>
      {markRead.error && (
        <p className="form-error" role="alert">
          {markRead.error.message}
        </p>
      )}
      <QueryStatus query={list} loading="Loading notifications…">
        {({ pages }) => {
          const items = pages.flatMap((page) => page.items);
          if (!items.length)
            return (
              <p className="empty">
                Nothing yet. You are told here when a conversation is assigned to you, a colleague mentions you in a note, a client writes
                in a conversation of yours, one of yours is overdue, or a message you scheduled could not be sent.
              </p>
            );
          const older = olderOf(list);
          return (
            <>
              <ul className="notification-list" aria-label="Notification list">
                {items.map((n) => (
                  <li key={n.id}>
                    <Link
                      href={notificationPath(n)}
                      className={`notification${n.readAt ? '' : ' unread'}`}
                      onClick={() => {
                        if (!n.readAt) markRead.mutate({ ids: [n.id] });
                        onOpenOne();
                      }}
                    >
                      <span className="notification-kind">
                        {!n.readAt && <span className="visually-hidden">Unread: </span>}
                        {kindLabel(n)}
                      </span>
                      <span className="notification-text">{describeNotification(n, myId)}</span>
                      {n.noteWords && <q className="notification-note">{n.noteWords}</q>}
                      <time dateTime={n.at.toISOString()} title={formatDateTime(n.at)}>
                        {formatWhen(n.at)}
                      </time>
                    </Link>
                  </li>
                ))}
              </ul>
              {older.hasMore && (
                <p className="list-more">
                  {older.failed && <span className="form-error">Could not load older notifications. </span>}
                  <button
                    type="button"
                    className="button ghost small"
                    onClick={() => {
                      if (!older.loading) older.load();
                    }}
                    aria-disabled={older.loading || undefined}
                  >
                    {older.loading ? 'Loading older notifications…' : 'Show older notifications'}
                  </button>
                </p>
              )}
            </>
          );
        }}
      </QueryStatus>
    </>
  );
}
