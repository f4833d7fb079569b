import { Transaction } from 'sequelize';
import { db } from '../core/db/db';
import type { TLogger } from '../core/logger';
import { queryRows, sql } from '../core/sql';
import { warnUnlessStopping } from '../core/stopping';
import { visibleTo, type TViewer } from '../core/visibility';
import { HAS_UNREAD, KEPT_UNREAD, readMarkJoin, SEEN_UNREAD, seenSummariesCte } from './threads-sql';
import { changedSince, touchedByWalls } from './unread-kept-sql';

// The badge, kept (server/inbox/README.md "The badge, kept"; migration 0039): a reader's unread per
// conversation as of a snapshot (`unread_snap`, every conversation, walls aside) and its sums
// (`unread_totals`). What changed since the snapshot is logged with its transaction's id, so the
// badge is the totals with the logged conversations — and those of clients the walls touch for the
// reader, read as they see them now — counted again: its cost follows recent activity, not the firm's size.

export type TUnreadCount = { conversations: number; messages: number };

/**
 * The reader's badge from their kept totals, or null when they have none in force yet (never counted,
 * or marked stale by a change no stamp shows): the caller then counts in full.
 */
export async function countUnreadKept(viewer: TViewer): Promise<TUnreadCount | null> {
  const [row] = await queryRows<{ conversations: string; messages: string }>(
    sql`WITH tot AS MATERIALIZED (SELECT * FROM derived.unread_totals WHERE user_id = ${viewer.id} AND NOT stale),
     ${seenSummariesCte(viewer)},
     redo AS MATERIALIZED (
       SELECT DISTINCT k.thread_key FROM (${changedSince(viewer, sql`(SELECT snap_xmin FROM tot)`)} UNION ALL ${touchedByWalls(viewer)}) AS k(thread_key)
       WHERE EXISTS (SELECT 1 FROM tot)),
     was AS (SELECT count(*) AS c, coalesce(sum(u.n), 0) AS n FROM derived.unread_snap u
             WHERE u.user_id = ${viewer.id} AND u.thread_key IN (SELECT thread_key FROM redo)),
     now AS (SELECT count(*) AS c, coalesce(sum(${SEEN_UNREAD}), 0) AS n
             FROM chat_threads t ${readMarkJoin(viewer)} LEFT JOIN seen s ON s.client_id = t.client_id
             WHERE t.thread_key IN (SELECT thread_key FROM redo) AND ${HAS_UNREAD} AND ${SEEN_UNREAD} > 0
               AND ${visibleTo(viewer, sql`t.client_id`, null)})
     SELECT tot.conversations - was.c + now.c AS conversations, tot.messages - was.n + now.n AS messages FROM tot, was, now`,
  );
  return row ? { conversations: Number(row.conversations), messages: Number(row.messages) } : null;
}

// Another instance's fold of the same reader won: it committed after this one's snapshot (a
// serialization failure), or both counted a reader who had none (a duplicate row). The next round carries on.
const LOST_TO_ANOTHER_FOLD = new Set(['40001', '23505']);
const lostToAnotherFold = (error: unknown): boolean =>
  LOST_TO_ANOTHER_FOLD.has((error as { parent?: { code?: string } }).parent?.code ?? '');

/**
 * Brings one reader's kept counts up to a new snapshot: in full when they have none in force, otherwise
 * by counting again only what changed since the last (repeatable read: the rows and the snapshot's xmin
 * are one moment's). Returns false when another instance holds or has just changed their totals.
 */
export async function foldUnread(userId: number): Promise<boolean> {
  const viewer = { id: userId };
  try {
    return await db().transaction({ isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ }, async (transaction) => {
      const [held] = await queryRows<{ snap_xmin: string; stale: boolean }>(
        sql`SELECT snap_xmin::text, stale FROM derived.unread_totals WHERE user_id = ${userId} FOR UPDATE SKIP LOCKED`,
        { transaction },
      );
      // Not taken but there: another instance is folding them.
      if (!held && (await queryRows(sql`SELECT 1 FROM derived.unread_totals WHERE user_id = ${userId}`, { transaction })).length)
        return false;
      // The log's floor, held against a prune until this commits (one that committed since this snapshot: 40001).
      const [log] = await queryRows<{ behind: boolean; lost: boolean }>(
        sql`SELECT l.pruned_below > pg_snapshot_xmin(pg_current_snapshot()) AS lost,
           ${held?.snap_xmin ?? null}::xid8 IS NULL OR ${held?.snap_xmin ?? null}::xid8 < l.pruned_below AS behind
         FROM derived.unread_log l FOR SHARE`,
        { transaction },
      );
      if (log!.lost) return false; // pruned past this snapshot: a later round's snapshot is newer
      const full = !held || held.stale || log!.behind;
      const changed = full ? null : changedSince(viewer, sql`${held.snap_xmin}::xid8`);
      const scope = changed ? sql`t.thread_key IN (${changed})` : sql`true`;
      // Three statements of one snapshot: the old rows out, the new in, the totals moved by the difference.
      const [out] = await queryRows<{ c: string; n: string }>(
        sql`WITH cleared AS (
           DELETE FROM derived.unread_snap u WHERE u.user_id = ${userId}
             AND ${changed ? sql`u.thread_key IN (${changed})` : sql`true`} RETURNING u.n)
         SELECT count(*) AS c, coalesce(sum(n), 0) AS n FROM cleared`,
        { transaction },
      );
      const [into] = await queryRows<{ c: string; n: string }>(
        sql`WITH kept AS (
           INSERT INTO derived.unread_snap (user_id, thread_key, n)
           SELECT ${userId}, t.thread_key, ${KEPT_UNREAD} FROM chat_threads t ${readMarkJoin(viewer)} WHERE ${scope} AND ${HAS_UNREAD}
           RETURNING n)
         SELECT count(*) AS c, coalesce(sum(n), 0) AS n FROM kept`,
        { transaction },
      );
      const [conversations, messages] = full
        ? [Number(into!.c), Number(into!.n)]
        : [Number(into!.c) - Number(out!.c), Number(into!.n) - Number(out!.n)];
      await queryRows(
        sql`INSERT INTO derived.unread_totals AS u (user_id, conversations, messages, snap_xmin, stale, counted_at)
         VALUES (${userId}, ${conversations}, ${messages}, pg_snapshot_xmin(pg_current_snapshot()), false, now())
         ON CONFLICT (user_id) DO UPDATE SET
           conversations = CASE WHEN ${full} THEN excluded.conversations ELSE u.conversations + excluded.conversations END,
           messages = CASE WHEN ${full} THEN excluded.messages ELSE u.messages + excluded.messages END,
           snap_xmin = excluded.snap_xmin, stale = false, counted_at = excluded.counted_at
         RETURNING 1`,
        { transaction },
      );
      return true;
    });
  } catch (error) {
    if (lostToAnotherFold(error)) return false;
    throw error;
  }
}

/** The active people whose kept counts are missing, stale, or behind a change (at most `batch`). */
export async function readersToFold(batch: number): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    sql`SELECT p.id FROM users p LEFT JOIN derived.unread_totals u ON u.user_id = p.id
     WHERE p.deactivated_at IS NULL AND (u.user_id IS NULL OR u.stale
       OR EXISTS (SELECT 1 FROM derived.unread_changes c WHERE c.xid >= u.snap_xmin AND (c.user_id IS NULL OR c.user_id = p.id)))
     ORDER BY u.counted_at NULLS FIRST, p.id LIMIT ${batch}`,
  );
  return rows.map((r) => r.id);
}

/**
 * Forgets the changes every active reader's counts have taken in (a reader's counts left behind the
 * floor are counted in full when they are next brought up to date): those older than the oldest snapshot in
 * force, and than any transaction still running (a first count under way may have started from there).
 * The floor is taken under the log's row lock, so no count commits against a floor it did not see.
 */
export async function pruneUnreadChanges(): Promise<number> {
  return db().transaction(async (transaction) => {
    await queryRows(sql`SELECT 1 FROM derived.unread_log FOR UPDATE`, { transaction });
    const [row] = await queryRows<{ pruned: string }>(
      sql`WITH floor AS (
         SELECT least((SELECT min(u.snap_xmin) FROM derived.unread_totals u JOIN users p ON p.id = u.user_id AND p.deactivated_at IS NULL WHERE NOT u.stale), pg_snapshot_xmin(pg_current_snapshot())) AS below),
       moved AS (UPDATE derived.unread_log l SET pruned_below = greatest(l.pruned_below, f.below) FROM floor f),
       gone AS (DELETE FROM derived.unread_changes c WHERE c.xid < (SELECT below FROM floor) RETURNING 1)
       SELECT (SELECT count(*) FROM gone) AS pruned`,
      { transaction },
    );
    return Number(row?.pruned ?? 0);
  });
}

/** How often the kept counts are brought up to date: the badge then corrects at most this much activity. */
const FOLD_POLL_MS = 2_000;
/** Readers one round looks at; a longer list is taken in further rounds at once. */
const FOLD_BATCH = 50;

/**
 * One round: every reader behind (at most `batch`) folded, then the log pruned — only after a fold, as
 * only a fold moves the oldest snapshot in force (what a running transaction held back goes at the next
 * round that folds). Returns how many were looked at.
 */
export async function foldUnreadRound(batch = FOLD_BATCH): Promise<number> {
  const readers = await readersToFold(batch);
  for (const id of readers) await foldUnread(id);
  if (readers.length) await pruneUnreadChanges();
  return readers.length;
}

/**
 * Keeps every active reader's counts near the present, in the database (the rows are the queue: a
 * crash loses nothing, a reader behind stays behind until a round takes them; two instances take
 * different readers, or one gives way), until the returned stop is called.
 */
export function scheduleUnreadFolding(logger: TLogger): () => Promise<void> {
  let running: Promise<void> | null = null;
  const tick = () => {
    running ??= (async () => {
      try {
        while ((await foldUnreadRound()) >= FOLD_BATCH);
      } catch (error) {
        warnUnlessStopping(logger, { error: (error as Error).name }, 'keeping unread counts failed');
      } finally {
        running = null;
      }
    })();
  };
  tick();
  const timer = setInterval(tick, FOLD_POLL_MS).unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** Below this many unread conversations the unread filter starts from the kept counts; above, walking the inbox finds a page sooner. */
const FEW_UNREAD = 2_000;

/** The reader's kept counts are in force and name few unread conversations. */
export async function hasFewUnreadKept(viewer: Pick<TViewer, 'id'>): Promise<boolean> {
  const [row] = await queryRows<{ few: boolean }>(
    sql`SELECT conversations < ${FEW_UNREAD} AS few FROM derived.unread_totals WHERE user_id = ${viewer.id} AND NOT stale`,
  );
  return row?.few ?? false;
}
