import pg from 'pg';

// One e2e app serves every file of a worker (tests/support/e2e-world.ts); between files its database
// goes back to what it held once the app had started: the rows migrations and the app's start-up
// wrote (the audit chain's head, the synced template catalogue), kept in a schema of their own.

const BASE = 'e2e_base';
// Umzug's record of applied migrations: never emptied, or the next start would migrate again.
const KEPT = new Set(['schema_migrations']);

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function publicTables(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
  return rows.map((r) => r.name).filter((name) => !KEPT.has(name));
}

/** Copies every non-empty table (and every sequence's position) into the base schema, replacing an earlier copy. */
export async function saveDatabaseBase(ownerUrl: string): Promise<void> {
  await withClient(ownerUrl, async (client) => {
    await client.query('BEGIN');
    await client.query(`DROP SCHEMA IF EXISTS ${BASE} CASCADE; CREATE SCHEMA ${BASE}`);
    for (const table of await publicTables(client)) {
      const { rows } = await client.query<{ some: boolean }>(`SELECT EXISTS (SELECT FROM public.${ident(table)}) AS some`);
      if (rows[0]?.some) await client.query(`CREATE TABLE ${BASE}.${ident(table)} AS TABLE public.${ident(table)}`);
    }
    await client.query(`CREATE TABLE ${BASE}.__sequences AS
      SELECT sequencename AS name, last_value FROM pg_sequences WHERE schemaname = 'public' AND last_value IS NOT NULL`);
    await client.query('COMMIT');
  });
}

/**
 * Empties every table and puts the base rows back, in one transaction, as the superuser: triggers
 * (the trail's refusal of TRUNCATE, foreign keys) are off for it, so the rows come back as they were.
 */
export async function resetDatabaseToBase(ownerUrl: string): Promise<void> {
  // The app keeps running meanwhile (a queue worker, a live check): its transaction and this TRUNCATE
  // may lock the same tables in opposite orders, and PostgreSQL ends one of them as a deadlock. The
  // app's goes on; the reset, which has written nothing, starts again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await resetOnce(ownerUrl);
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK || attempt === 5) throw error;
    }
  }
}

/** PostgreSQL's SQLSTATE for a transaction ended to break a deadlock. */
const DEADLOCK = '40P01';

async function resetOnce(ownerUrl: string): Promise<void> {
  await withClient(ownerUrl, async (client) => {
    const tables = await publicTables(client);
    const { rows: saved } = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> '__sequences'`,
      [BASE],
    );
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(`TRUNCATE ${tables.map((t) => `public.${ident(t)}`).join(', ')} RESTART IDENTITY CASCADE`);
    // What the server keeps counted from those rows (schema derived: each person's unread, server/inbox/
    // README.md "The badge, kept") goes with them, as a TRUNCATE fires no trigger to mark it stale: kept,
    // the next file's readers would start from the last file's counts (walls.test.ts saw 10 for 13).
    await client.query('TRUNCATE derived.unread_snap, derived.unread_totals, derived.unread_changes');
    for (const { name } of saved) {
      const { rows: columns } = await client.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
        [name],
      );
      const list = columns.map((c) => ident(c.name)).join(', ');
      await client.query(`INSERT INTO public.${ident(name)} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM ${BASE}.${ident(name)}`);
    }
    await client.query(`SELECT setval(format('public.%I', name), last_value) FROM ${BASE}.__sequences`);
    await client.query('COMMIT');
  });
}
