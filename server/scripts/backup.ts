import 'dotenv/config';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../core/config';
import { attachDatabase } from '../core/db/attach-database';
import { createLogger } from '../core/logger';
import { writeBackup } from '../backup/write-backup';
import { count, createProgressLine, megabytes } from '../backup/progress-line';

// npm run backup -- <file>: one consistent copy of the whole database, with the server running or
// not (server/backup/README.md "Backup and restore").
async function main() {
  const file = process.argv[2];
  if (!file || process.argv.length > 3) throw new ConfigError('Usage: npm run backup -- <file>');
  const target = path.resolve(file);
  if (existsSync(target)) throw new ConfigError(`${target} already exists: choose another name (a backup never overwrites one).`);
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const started = Date.now();
  const database = await attachDatabase(config, logger);
  const progress = createProgressLine('backup');
  try {
    if (database.mode === 'running-server') progress(`copying from the running server's database (pid ${database.serverPid})`, true);
    const manifest = await writeBackup(database.ownerUrl, target, (p) => {
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
      `Backup written and verified: ${target} (${manifest.parts.length} tables, ${count(rows)} rows, ${megabytes(bytes)}, schema ${manifest.schemaVersion}) in ${seconds} s.`,
    );
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(`Backup failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
