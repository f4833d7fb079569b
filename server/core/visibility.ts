import { raw, sql, Sql } from './sql';

// The ethical walls' one rule (server/access/README.md "Ethical walls"; server/decisions/0016-ethical-walls-in-sql.md).
// A record is visible to a person when the person is not screened from its client or its case, and
// (its client is not restricted or the person is a member of the client) and (its case is not
// restricted or the person is a member of the case). A record with neither (an unlinked number's
// conversation) is visible to all staff. Every read path composes this predicate into its own SQL,
// so the planner sees it whole (an anti-join over the few restricted rows, never a filter after the
// fact) and a page holds only what its reader may see.

/** Who is looking: the signed-in member of staff a read answers. */
export type TViewer = { id: number; role: 'director' | 'staff' };

/**
 * The rule as a SQL condition, carrying its own values. `viewer` is the person (their id is bound),
 * or a column of people when many are asked at once (sql`u.id`); `clientId` and `caseId` are the
 * record's, as SQL expressions (sql`c.client_id`, or a value such as sql`${id}::int`), `caseId`
 * null where the row has no case.
 */
export function visibleTo(viewer: Pick<TViewer, 'id'> | Sql, clientId: Sql, caseId: Sql | null): Sql {
  const who = viewer instanceof Sql ? viewer : sql`${viewer.id}`;
  return sql`(${subjectVisible(who, 'client', clientId, 'clients')} AND ${subjectVisible(who, 'case', caseId, 'cases')})`;
}

function subjectVisible(who: Sql, type: 'client' | 'case', id: Sql | null, table: 'clients' | 'cases'): Sql {
  if (id === null) return sql`true`;
  return sql`(${id} IS NULL OR (
    NOT EXISTS (SELECT 1 FROM access_screens ws WHERE ws.subject_type = '${raw(type)}' AND ws.subject_id = ${id} AND ws.user_id = ${who})
    AND NOT EXISTS (SELECT 1 FROM ${raw(table)} wr WHERE wr.id = ${id} AND wr.restricted
      AND NOT EXISTS (SELECT 1 FROM access_members wm WHERE wm.subject_type = '${raw(type)}' AND wm.subject_id = wr.id AND wm.user_id = ${who}))))`;
}

/** A viewer and the request they read through: what an `access.denied` record names. */
export type TReader = TViewer & { ip: string | null; path: string };
