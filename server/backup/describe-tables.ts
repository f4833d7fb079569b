import type pg from 'pg';

export type TTableShape = { table: string; columns: string[] };
export type TSequenceOwner = { name: string; table: string | null; column: string | null };

/**
 * The tables of schema public with their stored columns, parents before the tables whose foreign
 * keys point at them (then by name): a fixed order, and one a restore without superuser rights can
 * load with its foreign keys checked.
 */
export async function describeTables(client: pg.ClientBase): Promise<TTableShape[]> {
  const { rows: tables } = await client.query<{ table: string; columns: string[] }>(
    `SELECT c.relname AS table, array_agg(a.attname::text ORDER BY a.attnum) AS columns
     FROM pg_class c
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
     GROUP BY c.relname`,
  );
  const { rows: edges } = await client.query<{ child: string; parent: string }>(
    `SELECT child.relname AS child, parent.relname AS parent
     FROM pg_constraint k
     JOIN pg_class child ON child.oid = k.conrelid
     JOIN pg_class parent ON parent.oid = k.confrelid
     WHERE k.contype = 'f' AND k.connamespace = 'public'::regnamespace AND k.conrelid <> k.confrelid`,
  );
  const parentsOf = new Map(tables.map((t) => [t.table, new Set<string>()]));
  for (const { child, parent } of edges) if (parentsOf.has(parent)) parentsOf.get(child)?.add(parent);
  const ordered: TTableShape[] = [];
  const placed = new Set<string>();
  const byName = [...tables].sort((a, b) => (a.table < b.table ? -1 : 1));
  while (ordered.length < byName.length) {
    const next =
      byName.find((t) => !placed.has(t.table) && [...parentsOf.get(t.table)!].every((p) => placed.has(p))) ??
      byName.find((t) => !placed.has(t.table))!; // a cycle: take the first by name
    ordered.push(next);
    placed.add(next.table);
  }
  return ordered;
}

/** The sequences of schema public, with the column that owns each (serial and identity columns). */
export async function describeSequences(client: pg.ClientBase): Promise<TSequenceOwner[]> {
  const { rows } = await client.query<TSequenceOwner>(
    `SELECT s.relname AS name, t.relname AS table, a.attname AS column
     FROM pg_class s
     LEFT JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
     LEFT JOIN pg_class t ON t.oid = d.refobjid
     LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
     WHERE s.relkind = 'S' AND s.relnamespace = 'public'::regnamespace
     ORDER BY s.relname`,
  );
  return rows;
}

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const columnList = (columns: readonly string[]) => columns.map(quoteIdent).join(', ');
