import 'dotenv/config';
import { ConfigError, loadConfig } from '../core/config';
import { attachDatabase } from '../core/db/attach-database';
import { createSequelize } from '../core/db/sequelize';
import { createLogger } from '../core/logger';
import { verifyAuditChain } from '../audit/audit-chain';
import { describeCheckpoints } from '../../shared/audit/describe-checkpoints';
import { count, createProgressLine } from '../backup/progress-line';
import { loadSigningKey, SigningKeyError, trustedKeysOf, type TPublicKey } from '../signing';

// npm run audit:verify: walks the trail's hash chain from its first event to its head and checks every
// signed checkpoint with the firm's key (server/records/README.md "Records"; server/decisions/0023-signing-key.md);
// exit 0 when it verifies, 1 when it does not (or cannot be read).
async function main() {
  if (process.argv.length > 2) throw new ConfigError('Usage: npm run audit:verify');
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  // The key file is read, never made here: without it a checkpoint cannot be told from a forgery.
  let keys: TPublicKey[];
  let keyFile: string | null = null;
  try {
    keys = trustedKeysOf(loadSigningKey(config.signingKeyFile, { create: false }));
    keyFile = config.signingKeyFile;
  } catch (error) {
    if (!(error instanceof SigningKeyError)) throw error;
    console.log(`The firm's signing key cannot be read (SIGNING_KEY_FILE: ${error.message}): no checkpoint can be shown to be the firm's.`);
    keys = [];
  }
  const database = await attachDatabase(config, logger);
  // The owner reads it: no statement timeout (a batch of a large trail may take longer than a request's 4 s).
  const sequelize = createSequelize(database.ownerUrl, logger, { poolMax: 1, unbounded: true });
  const progress = createProgressLine('audit:verify');
  try {
    const check = await verifyAuditChain(sequelize, (rows) => progress(`${count(rows)} events checked`), { keys, keyFile });
    if (check.ok) {
      const head = check.head.id === null ? 'empty' : `head #${check.head.id} ${check.head.hash}`;
      console.log(`The trail verifies: ${count(check.rows)} events, ${head}`);
    } else if (check.firstBadId !== undefined) {
      console.log(`The trail does NOT verify at event #${check.firstBadId}: ${check.problem}`);
    } else {
      console.log(`The trail does NOT verify at checkpoint #${check.checkpoints.firstBadId}: ${check.checkpoints.problem}`);
    }
    console.log(describeCheckpoints(check.checkpoints, (at) => at.toISOString()));
    if (!check.ok) process.exitCode = 1;
  } finally {
    await sequelize.close().catch(() => undefined);
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(`audit:verify failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
