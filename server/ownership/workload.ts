import { queryRows, sql } from '../core/sql';
import { clientOfThreadKey } from '../core/thread-key-sql';
import { visibleTo, type TViewer } from '../core/visibility';
import { clientWaiting } from '../core/client-waiting-sql';
import type { TPersonRef } from './conversation-ref';

export type TWorkloadRow = { user: TPersonRef; open: number; awaitingReply: number; oldestAwaitingAt: Date | null; overdue: number };

/**
 * Per active person (and anyone inactive still holding conversations): the open conversations
 * assigned to them, how many of those wait for the firm's reply (the client wrote last), the
 * longest wait, and how many are past the reply target. Only conversations the viewer may see are
 * counted (server/access/README.md "Ethical walls": a count is a record's trace too).
 */
export async function readWorkload(viewer: TViewer, replyTargetMinutes: number): Promise<TWorkloadRow[]> {
  const rows = await queryRows<{ id: number; name: string; open: number; awaiting: number; oldest: Date | null; overdue: number }>(
    sql`WITH held AS (
       SELECT s.assignee_id, ${clientWaiting(sql`l`)} AS waiting, l.created_at
       FROM conversation_states s LEFT JOIN chat_threads t ON t.thread_key = s.thread_key LEFT JOIN communications l ON l.id = t.last_id
       WHERE s.state = 'open' AND s.assignee_id IS NOT NULL
         AND ${visibleTo(viewer, clientOfThreadKey(sql`s.thread_key`), null)})
     SELECT u.id, u.name,
       count(h.assignee_id)::int AS open,
       count(*) FILTER (WHERE h.waiting)::int AS awaiting,
       min(h.created_at) FILTER (WHERE h.waiting) AS oldest,
       count(*) FILTER (WHERE h.waiting AND h.created_at < now() - make_interval(mins => ${replyTargetMinutes}::int))::int AS overdue
     FROM users u LEFT JOIN held h ON h.assignee_id = u.id
     WHERE u.deactivated_at IS NULL OR h.assignee_id IS NOT NULL
     GROUP BY u.id, u.name
     ORDER BY count(*) FILTER (WHERE h.waiting) DESC, min(h.created_at) FILTER (WHERE h.waiting), u.name`,
  );
  return rows.map((r) => ({
    user: { id: r.id, name: r.name },
    open: r.open,
    awaitingReply: r.awaiting,
    oldestAwaitingAt: r.oldest,
    overdue: r.overdue,
  }));
}
