import { sql, type Sql } from '../core/sql';
import { visibleTo, type TViewer } from '../core/visibility';

// The pieces of the kept badge's statements (server/inbox/README.md "The badge, kept") that the
// unread filter shares: they read `seen` (threads-sql.ts's walls CTE) where they name it.

/** The reader's client conversations the walls touch (a case walled from them, or the client hidden): few. */
export const touchedByWalls = (viewer: Pick<TViewer, 'id'>): Sql =>
  sql`SELECT 'client-' || s.client_id FROM seen s
    UNION ALL SELECT 'client-' || c.id FROM clients c
    WHERE c.id IN (SELECT r.id FROM clients r WHERE r.restricted
                   UNION ALL SELECT a.subject_id FROM access_screens a WHERE a.subject_type = 'client' AND a.user_id = ${viewer.id})
      AND NOT ${visibleTo(viewer, sql`c.id`, null)}`;

/** Conversations whose count, or the reader's mark on it, changed since the snapshot at `since` (an xid8 expression). */
export const changedSince = (viewer: Pick<TViewer, 'id'>, since: Sql): Sql =>
  sql`SELECT c.thread_key FROM derived.unread_changes c WHERE c.xid >= ${since} AND (c.user_id IS NULL OR c.user_id = ${viewer.id})`;

/**
 * Every conversation that can be unread for the reader, from their kept counts: unread at their
 * snapshot, changed since, or touched by the walls. Only for a reader whose counts are in force.
 */
export const keptUnreadCandidates = (viewer: Pick<TViewer, 'id'>): Sql =>
  sql`SELECT u.thread_key FROM derived.unread_snap u WHERE u.user_id = ${viewer.id}
    UNION ALL ${changedSince(viewer, sql`(SELECT k.snap_xmin FROM derived.unread_totals k WHERE k.user_id = ${viewer.id})`)}
    UNION ALL ${touchedByWalls(viewer)}`;
