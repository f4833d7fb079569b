import { announceOwnershipChange } from '../conversations';
import type { TLogger } from '../core/logger';
import { db } from '../core/db/db';
import { queryRows, sql, type Sql } from '../core/sql';
import { visibleTo } from '../core/visibility';
import { announceNotifications } from '../notifications';
import { clientWaiting } from '../core/client-waiting-sql';
import { warnUnlessStopping } from '../core/stopping';

// A conversation's timers are columns on its own row (server/decisions/0017-conversation-timers-on-their-row.md):
// the row is the queue. Every instance polls it; each round is one statement that locks the due
// rows it takes (SKIP LOCKED: two instances take different rows) and changes them so that they are
// no longer due, in the same transaction as its audit rows and notifications. A crash loses
// nothing (the rows stay due) and nothing happens twice (a changed row is due no more).

/** How often snoozes are looked for: a snooze ends at most this late. */
const SNOOZE_POLL_MS = 1_000;
/** How often waits past the reply target are looked for. */
const OVERDUE_POLL_MS = 30_000;
/** Rows one transaction takes; a bigger backlog is taken in further rounds at once. */
const BATCH = 5_000;

const SUBJECT_OF_KEY = (key: Sql): Sql =>
  sql`CASE WHEN ${key} LIKE 'client-%' THEN 'client:' || substr(${key}, 8) ELSE 'phone:' || substr(${key}, 7) END`;

/** Opens the conversations whose snooze has ended (at most `batch`); audited `inbox.state` by the system. Returns how many. */
export async function reopenEndedSnoozes(batch = BATCH): Promise<number> {
  return db().transaction(async (transaction) => {
    const [row] = await queryRows<{ opened: number }>(
      sql`WITH due AS (
         SELECT thread_key, snoozed_until FROM conversation_states
         WHERE state = 'snoozed' AND snoozed_until <= now() ORDER BY snoozed_until LIMIT ${batch} FOR UPDATE SKIP LOCKED),
       opened AS (
         UPDATE conversation_states s SET state = 'open', snoozed_until = NULL, updated_at = now()
         FROM due d WHERE s.thread_key = d.thread_key RETURNING s.thread_key, d.snoozed_until),
       audited AS (
         INSERT INTO public.audit_events (user_id, action, subject, detail)
         SELECT NULL, 'inbox.state', ${SUBJECT_OF_KEY(sql`o.thread_key`)},
                jsonb_build_object('from', 'snoozed', 'to', 'open', 'snoozeEnded', o.snoozed_until)
         FROM opened o ORDER BY o.snoozed_until, o.thread_key RETURNING 1)
       SELECT (SELECT count(*) FROM audited)::int AS opened`,
      { transaction },
    );
    const opened = row?.opened ?? 0;
    if (opened > 0) await announceOwnershipChange(transaction);
    return opened;
  });
}

/**
 * Tells each assignee, once per wait, of an open conversation whose client has waited longer than
 * the reply target (the firm's next reply clears the mark: migration 0019's trigger). Returns how many.
 */
export async function notifyOverdueConversations(replyTargetMinutes: number, batch = BATCH): Promise<number> {
  return db().transaction(async (transaction) => {
    const rows = await queryRows<{ user_id: number }>(
      sql`WITH due AS (
         SELECT s.thread_key, s.assignee_id, t.last_id FROM conversation_states s
         JOIN chat_threads t ON t.thread_key = s.thread_key JOIN communications l ON l.id = t.last_id
         WHERE s.state = 'open' AND s.assignee_id IS NOT NULL AND s.overdue_notified_at IS NULL
           AND ${clientWaiting(sql`l`)} AND l.created_at < now() - make_interval(mins => ${replyTargetMinutes}::int)
           AND ${visibleTo(sql`s.assignee_id`, sql`l.client_id`, sql`l.case_id`)}
         ORDER BY s.thread_key LIMIT ${batch} FOR UPDATE OF s SKIP LOCKED),
       marked AS (
         UPDATE conversation_states s SET overdue_notified_at = now() FROM due d WHERE s.thread_key = d.thread_key
         RETURNING d.thread_key, d.assignee_id, d.last_id)
       INSERT INTO notifications (user_id, kind, thread_key, communication_id)
       SELECT assignee_id, 'overdue', thread_key, last_id FROM marked RETURNING user_id`,
      { transaction },
    );
    await announceNotifications([...new Set(rows.map((r) => r.user_id))], transaction);
    return rows.length;
  });
}

/** Runs `round` until it takes less than a whole batch, never two at once; failures are logged, never fatal. */
function poller(logger: TLogger, what: string, round: () => Promise<number>): () => void {
  let running = false;
  return () => {
    if (running) return;
    running = true;
    void (async () => {
      try {
        while ((await round()) >= BATCH);
      } catch (error) {
        warnUnlessStopping(logger, { error: (error as Error).name }, `${what} failed`);
      } finally {
        running = false;
      }
    })();
  };
}

/** Polls for ended snoozes and overdue waits until the returned stop is called. */
export function scheduleConversationTimers(logger: TLogger, replyTargetMinutes: number): () => void {
  const snoozes = poller(logger, 'reopening ended snoozes', () => reopenEndedSnoozes());
  const overdue = poller(logger, 'telling of overdue conversations', () => notifyOverdueConversations(replyTargetMinutes));
  snoozes();
  overdue();
  const timers = [setInterval(snoozes, SNOOZE_POLL_MS).unref(), setInterval(overdue, OVERDUE_POLL_MS).unref()];
  return () => timers.forEach(clearInterval);
}
