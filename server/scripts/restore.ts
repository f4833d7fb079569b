import 'dotenv/config';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig } from '../core/config';
import { attachDatabase, hasEmbeddedCluster } from '../core/db/attach-database';
import { findDataDirClaimant } from '../core/db/claim-data-dir';
import { createLogger } from '../core/logger';
import { verifyAuditChain } from '../audit/audit-chain';
import { forgetLastCheckpoint, trailIdentity } from '../audit/last-checkpoint-file';
import { createSequelize } from '../core/db/sequelize';
import type { TLogger } from '../core/logger';
import { checkBackup, resolveBackupKey, restoreBackup } from '../backup';
import { count, createProgressLine, megabytes } from '../backup/progress-line';

// npm run restore -- [--allow-unencrypted] <file>: a backup into an empty DATA_DIR (embedded) or an
// empty DATABASE_URL database; refuses anything else, a file that does not authenticate under the
// firm's backup key before the target is touched, and leaves nothing half-restored
// (server/backup/README.md "Backup and restore").
async function main() {
  const args = process.argv.slice(2);
  const allowUnencrypted = args[0] === '--allow-unencrypted';
  const file = allowUnencrypted ? args[1] : args[0];
  if (!file || file.startsWith('--') || args.length !== (allowUnencrypted ? 2 : 1))
    throw new ConfigError('Usage: npm run restore -- [--allow-unencrypted] <file>');
  const source = path.resolve(file);
  if (!existsSync(source)) throw new ConfigError(`${source} does not exist.`);
  const config = loadConfig();
  const key = resolveBackupKey(config, { create: false });
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const embedded = !config.databaseUrl;
  if (embedded) {
    const server = findDataDirClaimant(config.dataDir);
    if (server !== null)
      throw new ConfigError(
        `A Firm Chat server (pid ${server}) is running on ${config.dataDir}: stop it, and restore into an empty DATA_DIR.`,
      );
  }
  const started = Date.now();
  const progress = createProgressLine('restore');
  // The whole file is checked before the target is opened: an embedded DATA_DIR gets no cluster, a database no schema.
  const reader = await checkBackup(source, { key, allowUnencrypted }, (p) =>
    progress(`checking the file: ${p.table}, ${megabytes(p.bytes)}`),
  );
  if (!reader.sealed) progress('the file is an unencrypted backup of an older version, accepted by --allow-unencrypted', true);
  const hadCluster = embedded && hasEmbeddedCluster(config.dataDir);
  let restored = false;
  const database = await attachDatabase(config, logger).catch(async (error: unknown) => {
    await reader.close();
    throw error;
  });
  try {
    const result = await restoreBackup({
      reader,
      ownerUrl: database.ownerUrl,
      requestRole: database.requestRole,
      embedded,
      defaultCountry: config.defaultCountry,
      logger,
      verifyChain: verifyAuditChain,
      onProgress: (p) => {
        if (p.phase === 'migrate') progress(`migrating the empty database to ${p.to}`, true);
        else if (p.phase === 'load')
          progress(
            p.done ? `${p.table}: ${count(p.rows ?? 0)} rows, ${megabytes(p.bytes)}` : `${p.table}: ${megabytes(p.bytes)} so far`,
            p.done,
          );
        else if (p.phase === 'verify-trail') progress(`verifying the audit trail: ${count(p.rows)} events`);
      },
    });
    restored = true;
    await forgetKeptCheckpoint(config.signingKeyFile, database.ownerUrl, logger);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const migrated = result.migratedAfter.length ? `, then migrated to ${result.migratedAfter[result.migratedAfter.length - 1]}` : '';
    console.log(
      `Restored and verified: ${count(result.rows)} rows in ${result.manifest.parts.length} tables at schema ${result.manifest.schemaVersion}${migrated}; the trail verifies (${count(result.trailRows)} events). ${seconds} s.`,
    );
  } finally {
    await reader.close();
    await database.close();
    // A cluster this restore initialised holds nothing worth keeping after a failure: an empty DATA_DIR again.
    if (!restored && embedded && !hadCluster) await rm(path.join(config.dataDir, 'pg'), { recursive: true, force: true });
  }
}

/**
 * The restored trail starts again from the backup's head: a checkpoint of this database kept beside
 * the signing key (server/audit/last-checkpoint-file.ts), from before, would read as checkpoints deleted.
 */
async function forgetKeptCheckpoint(keyFile: string, ownerUrl: string, logger: TLogger): Promise<void> {
  const owner = createSequelize(ownerUrl, logger, { poolMax: 1 });
  try {
    forgetLastCheckpoint(keyFile, await trailIdentity(owner));
  } finally {
    await owner.close();
  }
}

main().catch((error: unknown) => {
  console.error(`Restore refused: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
