import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrateOnly } from '../app-under-test';
import { createDatabase, query, type TBenchTools } from '../bench-support';
import { reportHealthWaits, runScriptMeasured, sampleHealth, type TRecordsApp } from './records-app';
import { seedFiles } from './records-seed';

// Backup and restore (server/backup/README.md "Backup and restore"): `npm run backup` of the whole benchmark
// database while the server runs, then `npm run restore` of it into an empty database, each timed
// with its process's peak memory, and the round trip checked table by table: the same rows (a hash
// of every row), the trail verified by the restore itself. Memory is compared with the same script
// on a freshly migrated database, so the figure is what the data adds, not what Node and tsx cost.

const FILE_CHUNKS = 4; // 1 MB files, in the app's 256 KB chunks
const CHUNK_KB = 256;
const GROWTH_MB = 100;
/** Megabytes a second the backup and the restore keep up at least (a gigabyte in under two minutes and a half). */
const MIN_MB_PER_S = 7;

type TDigest = Map<string, { rows: string; digest: string }>;

export async function benchBackup(adminUrl: string, url: string, app: TRecordsApp, options: { bigFiles: number }, tools: TBenchTools) {
  let t0 = performance.now();
  const seeded = await seedFiles(url, {
    count: options.bigFiles,
    chunks: FILE_CHUNKS,
    chunkKb: CHUNK_KB,
    where: `c.client_id IS NOT NULL AND c.created_at > now() - interval '1 day'`,
    label: 'Bundle',
  });
  await query(url, 'ANALYZE');
  const [size] = await query<{ bytes: string }>(url, 'SELECT pg_database_size(current_database())::text AS bytes');
  const databaseMb = Number(size!.bytes) / 1024 / 1024;
  tools.report({
    part: 'records',
    name: `backup: ${seeded.files.toLocaleString('en-GB')} files of ${FILE_CHUNKS * CHUNK_KB} KB seeded (${(seeded.bytes / 1024 / 1024).toFixed(0)} MB; the database is now ${databaseMb.toFixed(0)} MB on disk)`,
    value: (performance.now() - t0) / 1000,
    unit: 's',
  });

  const dir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-bench-backup-'));
  try {
    // The scripts' own memory: the same scripts on a database with nothing in it.
    const empty = await createDatabase(adminUrl, 'bench_records_empty');
    await migrateOnly(empty);
    const emptyBackup = await runScriptMeasured('server/scripts/backup.ts', [path.join(dir, 'empty.fcb')], { DATABASE_URL: empty });
    const emptyTarget = await createDatabase(adminUrl, 'bench_records_empty_restored');
    const emptyRestore = await runScriptMeasured('server/scripts/restore.ts', [path.join(dir, 'empty.fcb')], { DATABASE_URL: emptyTarget });

    const file = path.join(dir, 'records.fcb');
    const health = sampleHealth(app.appUrl);
    let backup: Awaited<ReturnType<typeof runScriptMeasured>>;
    let sampled: { waits: number[]; failed: number } | undefined;
    try {
      backup = await runScriptMeasured('server/scripts/backup.ts', [file], { DATABASE_URL: url });
    } finally {
      sampled = await health();
    }
    const fileMb = (await stat(file)).size / 1024 / 1024;
    // Nothing writes once the server has stopped: the source is then what the snapshot saw.
    await app.stop();
    const backupGrowth = backup.peakMb - emptyBackup.peakMb;
    tools.report({
      part: 'records',
      name: `backup: npm run backup of the ${databaseMb.toFixed(0)} MB database with the server running (${fileMb.toFixed(0)} MB file, ${(fileMb / backup.seconds).toFixed(0)} MB/s)`,
      value: backup.seconds,
      unit: 's',
      ceiling: fileMb / MIN_MB_PER_S,
      ceilingName: `target (${MIN_MB_PER_S} MB/s)`,
      ratio: backup.seconds / (fileMb / MIN_MB_PER_S),
      target: `≥ ${MIN_MB_PER_S} MB/s`,
      pass: fileMb / backup.seconds >= MIN_MB_PER_S,
    });
    tools.report({
      part: 'records',
      name: `backup: the script's peak RSS growth over backing up an empty database (${backup.peakMb.toFixed(0)} MB against ${emptyBackup.peakMb.toFixed(0)} MB)`,
      value: backupGrowth,
      unit: 'MB',
      ceiling: GROWTH_MB,
      ceilingName: 'target',
      ratio: backupGrowth / GROWTH_MB,
      target: `≤ ${GROWTH_MB} MB (memory does not follow the database's size)`,
      pass: backupGrowth <= GROWTH_MB,
    });
    const { waits, failed } = sampled;
    reportHealthWaits(tools, 'backup: /api/health p99 during it', waits, failed);

    const target = await createDatabase(adminUrl, 'bench_records_restored');
    const restore = await runScriptMeasured('server/scripts/restore.ts', [file], { DATABASE_URL: target });
    const restoreGrowth = restore.peakMb - emptyRestore.peakMb;
    tools.report({
      part: 'records',
      name: `restore: npm run restore of it into an empty database, the trail verified (${(fileMb / restore.seconds).toFixed(0)} MB/s)`,
      value: restore.seconds,
      unit: 's',
      ceiling: fileMb / MIN_MB_PER_S,
      ceilingName: `target (${MIN_MB_PER_S} MB/s)`,
      ratio: restore.seconds / (fileMb / MIN_MB_PER_S),
      target: `≥ ${MIN_MB_PER_S} MB/s`,
      pass: fileMb / restore.seconds >= MIN_MB_PER_S,
    });
    tools.report({
      part: 'records',
      name: `restore: the script's peak RSS growth over restoring an empty database (${restore.peakMb.toFixed(0)} MB against ${emptyRestore.peakMb.toFixed(0)} MB)`,
      value: restoreGrowth,
      unit: 'MB',
      ceiling: GROWTH_MB,
      ceilingName: 'target',
      ratio: restoreGrowth / GROWTH_MB,
      target: `≤ ${GROWTH_MB} MB`,
      pass: restoreGrowth <= GROWTH_MB,
    });

    t0 = performance.now();
    const [before, after] = [await digestTables(url), await digestTables(target)];
    const differing = [...new Set([...before.keys(), ...after.keys()])].filter(
      (table) => before.get(table)?.rows !== after.get(table)?.rows || before.get(table)?.digest !== after.get(table)?.digest,
    );
    const rows = [...before.values()].reduce((sum, t) => sum + Number(t.rows), 0);
    const trail = /the trail verifies \(([\d,]+) events\)/.exec(restore.output)?.[1];
    tools.report({
      part: 'records',
      name: `round trip: tables whose rows differ after the restore (${before.size} tables, ${rows.toLocaleString('en-GB')} rows, each row hashed, compared in ${((performance.now() - t0) / 1000).toFixed(0)} s; the restore verified the trail: ${trail ?? 'NOT SAID'} events)${differing.length ? `: ${differing.join(', ')}` : ''}`,
      value: differing.length,
      unit: 'tables',
      target: '= 0, the trail verified',
      pass: differing.length === 0 && trail !== undefined,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every table of schema public: its row count and an MD5 over its rows' MD5s in order (an order-free digest of its content). */
async function digestTables(url: string): Promise<TDigest> {
  const tables = await query<{ name: string }>(
    url,
    `SELECT relname AS name FROM pg_class WHERE relkind IN ('r', 'p') AND relnamespace = 'public'::regnamespace ORDER BY relname`,
  );
  const digests: TDigest = new Map();
  for (const { name } of tables) {
    const [row] = await query<{ rows: string; digest: string }>(
      url,
      `SELECT count(*)::text AS rows, md5(coalesce(string_agg(h, '' ORDER BY h), '')) AS digest FROM (SELECT md5(t::text) AS h FROM "${name}" t) x`,
    );
    digests.set(name, row!);
  }
  return digests;
}
