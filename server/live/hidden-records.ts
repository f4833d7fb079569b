import { queryRows, sql } from '../core/sql';
import { visibleTo } from '../core/visibility';

/**
 * Which of these records each of these people may not see (server/access/README.md "Ethical walls"): one query per
 * change for every open stream at once, the walls' one rule asked of each (person, record) pair.
 * Only people with something hidden come back, so an unwalled firm gets an empty answer.
 */
export async function findHiddenRecords(viewerIds: number[], recordIds: number[]): Promise<Map<number, Set<number>>> {
  const hidden = new Map<number, Set<number>>();
  if (viewerIds.length === 0 || recordIds.length === 0) return hidden;
  const rows = await queryRows<{ viewer: number; ids: number[] }>(
    sql`SELECT v.id AS viewer, array_agg(c.id) AS ids
     FROM unnest(${viewerIds}::int[]) AS v(id) CROSS JOIN communications c
     WHERE c.id = ANY(${recordIds}::int[]) AND (c.client_id IS NOT NULL OR c.case_id IS NOT NULL)
       AND NOT ${visibleTo(sql`v.id`, sql`c.client_id`, sql`c.case_id`)}
     GROUP BY v.id`,
  );
  for (const row of rows) hidden.set(row.viewer, new Set(row.ids));
  return hidden;
}
