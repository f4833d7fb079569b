import { queryRows, sql } from '../core/sql';
import { visibleTo, type TViewer } from '../core/visibility';
import { HAS_UNREAD, readMarkJoin, SEEN_UNREAD, seenSummariesCte } from './threads-sql';

/**
 * How many conversations have messages the reader has not read and may open, and how many messages
 * that is (the top bar's badge and the tab's title): the reader's own (server/inbox/README.md "Unread").
 */
export async function countUnread(viewer: TViewer): Promise<{ conversations: number; messages: number }> {
  const [row] = await queryRows<{ conversations: string; messages: string | null }>(
    sql`WITH ${seenSummariesCte(viewer)}
     SELECT count(*) AS conversations, sum(${SEEN_UNREAD}) AS messages
     FROM chat_threads t ${readMarkJoin(viewer)} LEFT JOIN seen s ON s.client_id = t.client_id
     WHERE ${HAS_UNREAD} AND ${SEEN_UNREAD} > 0 AND ${visibleTo(viewer, sql`t.client_id`, null)}`,
  );
  return { conversations: Number(row?.conversations ?? 0), messages: Number(row?.messages ?? 0) };
}
