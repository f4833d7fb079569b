import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CountryCode } from 'libphonenumber-js/min';
import pg from 'pg';
// pg-copy-streams: COPY … FROM STDIN fed from the file frame by frame, with backpressure, so a
// gigabyte of files loads in bounded memory (see write-backup.ts).
import { from as copyFrom } from 'pg-copy-streams';
import type { Sequelize } from 'sequelize';
import { MIGRATION_NAMES, migrateDatabase } from '../core/db/migrate';
import { ensureEmbeddedRequestRole } from '../core/db/request-role';
import { createSequelize } from '../core/db/sequelize';
import type { TLogger } from '../core/logger';
import { SEARCH_LANGUAGES, type TSearchLanguage } from '../core/search-language';
import type { TBackupManifest } from './backup-format';
import { columnList, describeTables, quoteIdent } from './describe-tables';
import { openBackup, verifyBackup, type TBackupReader, type TOpenOptions } from './read-backup';

export type TRestoreProgress =
  | { phase: 'check'; table: string; bytes: number }
  | { phase: 'migrate'; to: string }
  | { phase: 'load'; table: string; bytes: number; done: boolean; rows?: number }
  | { phase: 'verify-trail'; rows: number };

export type TChainVerifier = (
  database: Sequelize,
  onProgress?: (rows: number) => void,
) => Promise<{ ok: boolean; rows: number; firstBadId?: number; problem?: string }>;

export type TRestoreOptions = {
  /** From checkBackup: every byte already authenticated and checked (each chunk is authenticated again as it loads). */
  reader: TBackupReader;
  ownerUrl: string;
  /** The role requests run as, granted its rights by the migrations (undefined: the owner serves requests too). */
  requestRole: string | undefined;
  /** The embedded cluster: its request role (firm_chat_app) is created as openDatabase does. */
  embedded: boolean;
  defaultCountry: CountryCode | undefined;
  logger: TLogger;
  onProgress: (progress: TRestoreProgress) => void;
  /** The trail's verifier (audit's verifyAuditChain), handed in by the script: a feature reaches another only through its index. */
  verifyChain: TChainVerifier;
};

export type TRestoreResult = { manifest: TBackupManifest; rows: number; trailRows: number; migratedAfter: string[] };

/** A refusal: nothing in the target was changed, or what was changed has been undone. The message is one sentence for the operator. */
export class RestoreRefusedError extends Error {
  override name = 'RestoreRefusedError';
}

/** The backup's migrations must be the code's first N, in order: a name the code does not know is a newer schema. */
function checkSchemaVersion(manifest: TBackupManifest): void {
  const unknown = manifest.migrations.find((name) => !MIGRATION_NAMES.includes(name));
  if (unknown)
    throw new RestoreRefusedError(
      `This backup's schema (${manifest.schemaVersion}) is newer than this version of Firm Chat knows (its migration ${unknown} is not in the code, whose latest is ${MIGRATION_NAMES[MIGRATION_NAMES.length - 1]}): restore it with the version that made it, or a newer one.`,
    );
  if (manifest.migrations.some((name, i) => MIGRATION_NAMES[i] !== name))
    throw new RestoreRefusedError(
      `This backup's migrations are not a prefix of this version's list: it was made by a different line of Firm Chat.`,
    );
}

async function countTables(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'`,
  );
  return rows[0]!.n;
}

async function listCreatables(client: pg.ClientBase): Promise<{ functions: string[]; sequences: string[] }> {
  const functions = await client.query<{ sig: string }>(
    `SELECT p.oid::regprocedure::text AS sig FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace`,
  );
  const sequences = await client.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class WHERE relkind = 'S' AND relnamespace = 'public'::regnamespace`,
  );
  return { functions: functions.rows.map((r) => r.sig), sequences: sequences.rows.map((r) => r.name) };
}

/** Takes the target back to what it was: the tables the migrations made (it had none), and the functions and sequences they added. */
async function undoSchema(ownerUrl: string, before: { functions: string[]; sequences: string[] }, logger: TLogger): Promise<void> {
  const client = new pg.Client({ connectionString: ownerUrl });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('BEGIN');
    const { rows: tables } = await client.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relkind IN ('r', 'p') AND relnamespace = 'public'::regnamespace`,
    );
    if (tables.length) await client.query(`DROP TABLE IF EXISTS ${tables.map((t) => quoteIdent(t.name)).join(', ')} CASCADE`);
    const after = await listCreatables(client);
    for (const sig of after.functions.filter((f) => !before.functions.includes(f)))
      await client.query(`DROP FUNCTION IF EXISTS ${sig} CASCADE`);
    for (const name of after.sequences.filter((s) => !before.sequences.includes(s)))
      await client.query(`DROP SEQUENCE IF EXISTS ${quoteIdent(name)} CASCADE`);
    await client.query('COMMIT');
  } catch (error) {
    logger.error({ err: error }, 'undoing the partial restore failed: drop its tables by hand before trying again');
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function migrateTo(
  ownerUrl: string,
  options: TRestoreOptions,
  searchLanguage: TSearchLanguage | undefined,
  to?: string,
): Promise<string[]> {
  const migrator = createSequelize(ownerUrl, options.logger, { poolMax: 1, unbounded: true });
  try {
    if (options.embedded) await ensureEmbeddedRequestRole(migrator);
    return await migrateDatabase(migrator, ownerUrl, {
      to,
      defaultCountry: options.defaultCountry,
      searchLanguage,
      requestRole: options.requestRole,
    });
  } finally {
    await migrator.close().catch(() => undefined);
  }
}

/**
 * Loads every part in ONE transaction with triggers off, so rows come back exactly as they were
 * (the trail's ids, times and hashes; chat_threads and conversation_states as stored, not rebuilt;
 * no notifications made again): as superuser, session_replication_role = replica turns off every
 * trigger and foreign-key check; an owner without it turns off its own (user) triggers per table and
 * loads parents first (the parts' order). Sequences are set to at least their column's largest value.
 * Row counts are checked before COMMIT; anything wrong rolls the whole load back.
 */
async function loadParts(ownerUrl: string, reader: TBackupReader, onProgress: TRestoreOptions['onProgress']): Promise<number> {
  const { manifest } = reader;
  const client = new pg.Client({ connectionString: ownerUrl, application_name: 'firm-chat restore' });
  client.on('error', () => undefined);
  await client.connect();
  let total = 0;
  try {
    await client.query('SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0');
    await client.query('BEGIN');
    const {
      rows: [role],
    } = await client.query<{ superuser: boolean }>('SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user');
    const tables = await describeTables(client);
    const shapes = new Map(tables.map((t) => [t.table, t.columns.join(',')]));
    for (const part of manifest.parts) {
      if (shapes.get(part.table) !== part.columns.join(','))
        throw new RestoreRefusedError(
          `The schema migrated to ${manifest.schemaVersion} has no table ${part.table} with the backup's columns.`,
        );
    }
    const names = tables.map((t) => quoteIdent(t.table)).join(', ');
    if (role?.superuser) await client.query('SET LOCAL session_replication_role = replica');
    else for (const t of tables) await client.query(`ALTER TABLE ${quoteIdent(t.table)} DISABLE TRIGGER USER`);
    // The migrations seed a few rows of their own (the migration list, the chain's head, the search
    // language): the backup's replace them.
    if (names) await client.query(`TRUNCATE ${names}`);
    for (const part of manifest.parts) {
      let bytes = 0;
      const source = Readable.from(
        (async function* () {
          for await (const frame of reader.readPart(part)) {
            bytes += frame.length;
            onProgress({ phase: 'load', table: part.table, bytes, done: false });
            yield frame;
          }
        })(),
        { objectMode: false },
      );
      const sink = client.query(copyFrom(`COPY ${quoteIdent(part.table)} (${columnList(part.columns)}) FROM STDIN (FORMAT binary)`));
      await pipeline(source, sink);
      const {
        rows: [count],
      } = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${quoteIdent(part.table)}`);
      if (Number(count!.n) !== part.rows || sink.rowCount !== part.rows)
        throw new RestoreRefusedError(
          `Table ${part.table} holds ${count!.n} rows after loading, the backup says ${part.rows}: nothing was restored.`,
        );
      total += part.rows;
      onProgress({ phase: 'load', table: part.table, bytes, done: true, rows: part.rows });
    }
    for (const sequence of manifest.sequences) {
      let value = BigInt(sequence.lastValue);
      let called = sequence.isCalled;
      if (sequence.table && sequence.column) {
        const {
          rows: [max],
        } = await client.query<{ max: string | null }>(
          `SELECT max(${quoteIdent(sequence.column)})::text AS max FROM ${quoteIdent(sequence.table)}`,
        );
        if (max?.max != null && (BigInt(max.max) > value || (BigInt(max.max) === value && !called))) {
          value = BigInt(max.max);
          called = true;
        }
      }
      await client.query('SELECT setval($1::regclass, $2::bigint, $3)', [quoteIdent(sequence.name), value.toString(), called]);
    }
    if (!role?.superuser) for (const t of tables) await client.query(`ALTER TABLE ${quoteIdent(t.table)} ENABLE TRIGGER USER`);
    await client.query('COMMIT');
    return total;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Step 1 of a restore, before the target is so much as opened: the file authenticates under this
 * firm's key end to end, every part matches its SHA-256, and its schema is one this version knows.
 * The reader is the caller's to close.
 */
export async function checkBackup(
  file: string,
  options: TOpenOptions,
  onProgress: (progress: Extract<TRestoreProgress, { phase: 'check' }>) => void,
): Promise<TBackupReader> {
  const reader = await openBackup(file, options);
  try {
    checkSchemaVersion(reader.manifest);
    await verifyBackup(reader, (table, bytes) => onProgress({ phase: 'check', table, bytes }));
    return reader;
  } catch (error) {
    await reader.close();
    throw error;
  }
}

/**
 * Restores a checked backup (checkBackup) into an empty database (server/backup/README.md "Backup and
 * restore"): migrates it to the backup's schema with the app's own migrations, loads the rows in one
 * transaction, brings an older schema up to date, then checks the trail. A failure after the
 * migrations began drops what they made: the target is empty again.
 */
export async function restoreBackup(options: TRestoreOptions): Promise<TRestoreResult> {
  const { ownerUrl, onProgress, logger, reader } = options;
  const { manifest } = reader;
  const probe = new pg.Client({ connectionString: ownerUrl });
  probe.on('error', () => undefined);
  await probe.connect();
  let before: { functions: string[]; sequences: string[] };
  try {
    const tables = await countTables(probe);
    if (tables > 0)
      throw new RestoreRefusedError(`The target database already has ${tables} table(s): restore only into an empty database.`);
    before = await listCreatables(probe);
  } finally {
    await probe.end().catch(() => undefined);
  }

  const searchLanguage = SEARCH_LANGUAGES.find((l) => l === manifest.searchLanguage);
  try {
    onProgress({ phase: 'migrate', to: manifest.schemaVersion });
    await migrateTo(ownerUrl, options, searchLanguage, manifest.schemaVersion);
    const rows = await loadParts(ownerUrl, reader, onProgress);
    const latest = MIGRATION_NAMES[MIGRATION_NAMES.length - 1]!;
    let migratedAfter: string[] = [];
    if (manifest.schemaVersion !== latest) {
      onProgress({ phase: 'migrate', to: latest });
      migratedAfter = await migrateTo(ownerUrl, options, searchLanguage);
    }
    const verifier = createSequelize(ownerUrl, logger, { poolMax: 1, unbounded: true });
    try {
      const check = await options.verifyChain(verifier, (n) => onProgress({ phase: 'verify-trail', rows: n }));
      if (!check.ok)
        throw new RestoreRefusedError(
          `The restored audit trail does not verify at event #${check.firstBadId}: ${check.problem}; the restore was undone.`,
        );
      return { manifest, rows, trailRows: check.rows, migratedAfter };
    } finally {
      await verifier.close().catch(() => undefined);
    }
  } catch (error) {
    await undoSchema(ownerUrl, before, logger);
    throw error;
  }
}
