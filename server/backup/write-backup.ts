import { createHash } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
// pg-copy-streams: COPY … TO STDOUT as a Node stream with backpressure on the socket, so a table of
// a million rows or a gigabyte of files passes through in bounded memory (node-postgres alone
// collects a query's whole result).
import { to as copyTo } from 'pg-copy-streams';
import {
  BACKUP_MAGIC,
  FORMAT_NAME,
  FORMAT_VERSION,
  frameHeader,
  TRAILER_MAGIC,
  type TBackupManifest,
  type TBackupPart,
} from './backup-format';
import type { TBackupKey } from './backup-key';
import { columnList, describeSequences, describeTables, quoteIdent } from './describe-tables';
import { openBackup, verifyBackup } from './read-backup';
import { createSealWriter } from './sealed-file';

export type TBackupProgress =
  | { phase: 'snapshot'; at: string }
  | { phase: 'copy'; table: string; bytes: number; done: boolean; rows?: number }
  | { phase: 'verify'; table: string; bytes: number };

/** Frames are cut at 1 MiB: large enough that their headers cost nothing, small enough to hold. */
const FRAME_BYTES = 1024 * 1024;

/**
 * Writes one consistent copy of every table of schema public to `file` (format: backup-format.ts,
 * sealed with `key` by sealed-file.ts; mode 0600): one connection, one REPEATABLE READ READ ONLY
 * transaction, so every table is read from the same snapshot while the server goes on writing.
 * Written to `<file>.partial`, fsynced, read back and checked part by part, then renamed into
 * place: a file under the final name is always whole.
 */
export async function writeBackup(
  ownerUrl: string,
  file: string,
  key: TBackupKey,
  onProgress: (progress: TBackupProgress) => void,
): Promise<TBackupManifest> {
  const partial = `${file}.partial`;
  const client = new pg.Client({ connectionString: ownerUrl, application_name: 'firm-chat backup' });
  client.on('error', () => undefined); // a lost connection also fails the query in flight, which reports it
  await client.connect();
  // 0600 from the first byte: the file holds every message and password hash, sealed or not.
  const handle = await open(partial, 'wx', 0o600).catch(async (error: NodeJS.ErrnoException) => {
    await client.end().catch(() => undefined);
    throw error.code === 'EEXIST'
      ? new Error(`${partial} exists: another backup is writing it, or one was interrupted (then remove it).`)
      : error;
  });
  let manifest: TBackupManifest;
  try {
    await handle.chmod(0o600); // whatever the umask
    const sealer = await createSealWriter(handle, key);
    // No statement_timeout: a large table's COPY takes as long as it takes.
    await client.query("SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0; SET lock_timeout = '10s'");
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // The first statement inside the transaction takes the snapshot everything below is read from.
    const {
      rows: [meta],
    } = await client.query<{ at: Date; version: string; migrations: string | null; search: string | null }>(
      `SELECT now() AS at, current_setting('server_version') AS version,
              to_regclass('public.schema_migrations')::text AS migrations, to_regclass('public.search_settings')::text AS search`,
    );
    onProgress({ phase: 'snapshot', at: meta!.at.toISOString() });
    if (!meta!.migrations) throw new Error('This database has no schema_migrations table: it is not a Firm Chat database.');
    const migrations = (await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map((r) => r.name);
    if (!migrations.length) throw new Error('This database has no migrations applied: there is nothing to back up.');
    const searchLanguage = meta!.search
      ? ((await client.query<{ language: string }>('SELECT language FROM search_settings LIMIT 1')).rows[0]?.language ?? null)
      : null;
    const tables = await describeTables(client);
    const sequences = [];
    for (const sequence of await describeSequences(client)) {
      const {
        rows: [value],
      } = await client.query<{ last: string; called: boolean }>(
        `SELECT last_value::text AS last, is_called AS called FROM ${quoteIdent(sequence.name)}`,
      );
      sequences.push({ ...sequence, lastValue: value!.last, isCalled: value!.called });
    }

    let position = 0; // in the backup's contents, before sealing: the manifest's offsets
    const write = async (buffer: Buffer) => {
      await sealer.write(buffer);
      position += buffer.length;
    };
    await write(BACKUP_MAGIC);
    const parts: TBackupPart[] = [];
    for (const { table, columns } of tables) {
      const offset = position;
      const hash = createHash('sha256');
      let bytes = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (!pendingBytes) return;
        await write(Buffer.concat([frameHeader(pendingBytes), ...pending]));
        pending = [];
        pendingBytes = 0;
        onProgress({ phase: 'copy', table, bytes, done: false });
      };
      const stream = client.query(copyTo(`COPY ${quoteIdent(table)} (${columnList(columns)}) TO STDOUT (FORMAT binary)`));
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        hash.update(chunk);
        bytes += chunk.length;
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= FRAME_BYTES) await flush();
      }
      await flush();
      await write(frameHeader(0));
      parts.push({ table, columns, rows: stream.rowCount, bytes, sha256: hash.digest('hex'), offset });
      onProgress({ phase: 'copy', table, bytes, done: true, rows: stream.rowCount });
    }
    await client.query('COMMIT');

    manifest = {
      format: FORMAT_NAME,
      version: FORMAT_VERSION,
      createdAt: meta!.at.toISOString(),
      schemaVersion: migrations[migrations.length - 1]!,
      migrations,
      postgresVersion: meta!.version,
      searchLanguage,
      copyFormat: 'binary',
      parts,
      sequences,
    };
    const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 1), 'utf8');
    const trailer = Buffer.alloc(36);
    createHash('sha256').update(manifestBytes).digest().copy(trailer, 0);
    trailer.writeUInt32BE(manifestBytes.length, 32);
    await write(Buffer.concat([manifestBytes, trailer, TRAILER_MAGIC]));
    await sealer.finish();
    await handle.sync();
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(partial).catch(() => undefined);
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }

  try {
    // Read back what reached the disk, not what was meant to.
    const reader = await openBackup(partial, { key });
    try {
      await verifyBackup(reader, (table, bytes) => onProgress({ phase: 'verify', table, bytes }));
    } finally {
      await reader.close();
    }
    await rename(partial, file);
    const directory = await open(path.dirname(path.resolve(file)), 'r');
    await directory.sync().finally(() => directory.close()); // the rename itself survives a power cut
  } catch (error) {
    await unlink(partial).catch(() => undefined);
    throw error;
  }
  return manifest;
}
