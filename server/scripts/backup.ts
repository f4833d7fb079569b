import 'dotenv/config';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openBackup, resolveBackupKey, verifyBackup, writeBackup } from '../backup';
import { count, createProgressLine, megabytes } from '../backup/progress-line';
import { ConfigError, loadConfig } from '../core/config';
import { attachDatabase } from '../core/db/attach-database';
import { createLogger } from '../core/logger';

// npm run backup -- <file>: one consistent copy of the whole database, sealed with the firm's backup
// key, with the server running or not; npm run backup -- --verify <file>: checks one without a
// database (server/backup/README.md "Backup and restore").
const USAGE = 'Usage: npm run backup -- <file>, or npm run backup -- --verify <file>';

async function write(file: string) {
  const target = path.resolve(file);
  if (existsSync(target)) throw new ConfigError(`${target} already exists: choose another name (a backup never overwrites one).`);
  const config = loadConfig();
  const key = resolveBackupKey(config, { create: true });
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const started = Date.now();
  const database = await attachDatabase(config, logger);
  const progress = createProgressLine('backup');
  try {
    if (database.mode === 'running-server') progress(`copying from the running server's database (pid ${database.serverPid})`, true);
    const manifest = await writeBackup(database.ownerUrl, target, key, (p) => {
      if (p.phase === 'snapshot') progress(`snapshot taken at ${p.at}`, true);
      else if (p.phase === 'copy')
        progress(
          p.done ? `${p.table}: ${count(p.rows ?? 0)} rows, ${megabytes(p.bytes)}` : `${p.table}: ${megabytes(p.bytes)} so far`,
          p.done,
        );
      else progress(`checking what was written: ${p.table}, ${megabytes(p.bytes)}`);
    });
    const rows = manifest.parts.reduce((sum, part) => sum + part.rows, 0);
    const bytes = manifest.parts.reduce((sum, part) => sum + part.bytes, 0);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `Backup written and verified: ${target} (${manifest.parts.length} tables, ${count(rows)} rows, ${megabytes(bytes)}, schema ${manifest.schemaVersion}) in ${seconds} s, encrypted with ${key.describe} (key id ${key.id}).`,
    );
  } finally {
    await database.close();
  }
}

async function verify(file: string) {
  const source = path.resolve(file);
  if (!existsSync(source)) throw new ConfigError(`${source} does not exist.`);
  const key = resolveBackupKey(loadConfig(), { create: false });
  const progress = createProgressLine('verify');
  const reader = await openBackup(source, { key });
  try {
    await verifyBackup(reader, (table, bytes) => progress(`checking the file: ${table}, ${megabytes(bytes)}`));
    const { manifest } = reader;
    const rows = manifest.parts.reduce((sum, part) => sum + part.rows, 0);
    console.log(
      `Backup verified: ${source} is whole, unaltered and this firm's (${key.describe}): ${manifest.parts.length} tables, ${count(rows)} rows, schema ${manifest.schemaVersion}, taken at ${manifest.createdAt}.`,
    );
  } finally {
    await reader.close();
  }
}

const args = process.argv.slice(2);
const verifying = args[0] === '--verify';
const file = verifying ? args[1] : args[0];
const run =
  !file || file.startsWith('--') || args.length !== (verifying ? 2 : 1)
    ? Promise.reject(new ConfigError(USAGE))
    : verifying
      ? verify(file)
      : write(file);
run.catch((error: unknown) => {
  console.error(`${verifying ? 'Verify failed' : 'Backup failed'}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
