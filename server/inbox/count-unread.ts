import { queryRows, sql } from '../core/sql';
import { visibleTo, type TViewer } from '../core/visibility';
import { SEEN_UNREAD, seenSummariesCte } from './threads-sql';

/**
 * How many conversations have unread messages the reader may open, and how many messages that is
 * (the top bar's badge and the tab's title).
 */
export async function countUnread(viewer: TViewer): Promise<{ conversations: number; messages: number }> {
  const [row] = await queryRows<{ conversations: string; messages: string | null }>(
    sql`WITH ${seenSummariesCte(viewer)}
     SELECT count(*) AS conversations, sum(${SEEN_UNREAD}) AS messages
     FROM chat_threads t LEFT JOIN seen s ON s.client_id = t.client_id
     WHERE t.unread > 0 AND ${SEEN_UNREAD} > 0 AND ${visibleTo(viewer, sql`t.client_id`, null)}`,
  );
  return { conversations: Number(row?.conversations ?? 0), messages: Number(row?.messages ?? 0) };
}
