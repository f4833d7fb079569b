// The ethical walls' one rule (README "Ethical walls"; server/decisions/0016-ethical-walls-in-sql.md).
// A record is visible to a person when the person is not screened from its client or its case, and
// (its client is not restricted or the person is a member of the client) and (its case is not
// restricted or the person is a member of the case). A record with neither (an unlinked number's
// conversation) is visible to all staff. Every read path composes this predicate into its own SQL,
// so the planner sees it whole (an anti-join over the few restricted rows, never a filter after the
// fact) and a page holds only what its reader may see.

/** Who is looking: the signed-in member of staff a read answers. */
export type TViewer = { id: number; role: 'director' | 'staff' };

/**
 * The rule as a SQL condition. Each argument is a SQL expression: `viewer` the person's user id
 * (a bind parameter such as `$4`, or a column when many people are asked at once), `clientId` and
 * `caseId` the record's (`NULL` where the row has none).
 */
export function visibleToSql(viewer: string, clientId: string, caseId: string): string {
  return `(${subjectVisibleSql(viewer, 'client', clientId, 'clients')} AND ${subjectVisibleSql(viewer, 'case', caseId, 'cases')})`;
}

function subjectVisibleSql(viewer: string, type: 'client' | 'case', id: string, table: 'clients' | 'cases'): string {
  if (id === 'NULL') return 'true';
  return `(${id} IS NULL OR (
    NOT EXISTS (SELECT 1 FROM access_screens ws WHERE ws.subject_type = '${type}' AND ws.subject_id = ${id} AND ws.user_id = ${viewer})
    AND NOT EXISTS (SELECT 1 FROM ${table} wr WHERE wr.id = ${id} AND wr.restricted
      AND NOT EXISTS (SELECT 1 FROM access_members wm WHERE wm.subject_type = '${type}' AND wm.subject_id = wr.id AND wm.user_id = ${viewer}))))`;
}

/** A viewer and the request they read through: what an `access.denied` record names. */
export type TReader = TViewer & { ip: string | null; path: string };
