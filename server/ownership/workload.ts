import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import { clientOfThreadKeySql } from '../core/thread-key-sql';
import { visibleToSql, type TViewer } from '../core/visibility';
import { clientWaitingSql } from '../core/client-waiting-sql';
import type { TPersonRef } from './conversation-ref';

export type TWorkloadRow = { user: TPersonRef; open: number; awaitingReply: number; oldestAwaitingAt: Date | null; overdue: number };

/**
 * Per active person (and anyone inactive still holding conversations): the open conversations
 * assigned to them, how many of those wait for the firm's reply (the client wrote last), the
 * longest wait, and how many are past the reply target. Only conversations the viewer may see are
 * counted (README "Ethical walls": a count is a record's trace too).
 */
export async function readWorkload(viewer: TViewer, replyTargetMinutes: number): Promise<TWorkloadRow[]> {
  const rows = await db().query<{ id: number; name: string; open: number; awaiting: number; oldest: Date | null; overdue: number }>(
    `WITH held AS (
       SELECT s.assignee_id, ${clientWaitingSql('l')} AS waiting, l.created_at
       FROM conversation_states s LEFT JOIN chat_threads t ON t.thread_key = s.thread_key LEFT JOIN communications l ON l.id = t.last_id
       WHERE s.state = 'open' AND s.assignee_id IS NOT NULL
         AND ${visibleToSql('$2', clientOfThreadKeySql('s.thread_key'), 'NULL')})
     SELECT u.id, u.name,
       count(h.assignee_id)::int AS open,
       count(*) FILTER (WHERE h.waiting)::int AS awaiting,
       min(h.created_at) FILTER (WHERE h.waiting) AS oldest,
       count(*) FILTER (WHERE h.waiting AND h.created_at < now() - make_interval(mins => $1::int))::int AS overdue
     FROM users u LEFT JOIN held h ON h.assignee_id = u.id
     WHERE u.deactivated_at IS NULL OR h.assignee_id IS NOT NULL
     GROUP BY u.id, u.name
     ORDER BY count(*) FILTER (WHERE h.waiting) DESC, min(h.created_at) FILTER (WHERE h.waiting), u.name`,
    { bind: [replyTargetMinutes, viewer.id], type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({
    user: { id: r.id, name: r.name },
    open: r.open,
    awaitingReply: r.awaiting,
    oldestAwaitingAt: r.oldest,
    overdue: r.overdue,
  }));
}
