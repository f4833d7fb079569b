import { queryRows, sql } from '../core/sql';
import { visibleTo, type TViewer } from '../core/visibility';
import { HAS_UNREAD, readMarkJoin, SEEN_UNREAD, seenSummariesCte } from './threads-sql';
import { countUnreadKept, type TUnreadCount } from './unread-kept';

/**
 * How many conversations have messages the reader has not read and may open, and how many messages
 * that is (the top bar's badge and the tab's title): the reader's own (server/inbox/README.md "Unread"),
 * from their kept counts when they have them in force, otherwise counted in full.
 */
export async function countUnread(viewer: TViewer): Promise<TUnreadCount> {
  return (await countUnreadKept(viewer)) ?? countUnreadInFull(viewer);
}

/** The badge counted over every conversation: what the kept counts must always equal. */
export async function countUnreadInFull(viewer: TViewer): Promise<TUnreadCount> {
  const [row] = await queryRows<{ conversations: string; messages: string | null }>(
    sql`WITH ${seenSummariesCte(viewer)}
     SELECT count(*) AS conversations, sum(${SEEN_UNREAD}) AS messages
     FROM chat_threads t ${readMarkJoin(viewer)} LEFT JOIN seen s ON s.client_id = t.client_id
     WHERE ${HAS_UNREAD} AND ${SEEN_UNREAD} > 0 AND ${visibleTo(viewer, sql`t.client_id`, null)}`,
  );
  return { conversations: Number(row?.conversations ?? 0), messages: Number(row?.messages ?? 0) };
}
