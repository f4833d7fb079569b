import 'dotenv/config';
import { ConfigError, loadConfig } from '../core/config';
import { attachDatabase } from '../core/db/attach-database';
import { createSequelize } from '../core/db/sequelize';
import { createLogger } from '../core/logger';
import { verifyAuditChain } from '../audit/audit-chain';
import { count, createProgressLine } from '../backup/progress-line';

// npm run audit:verify: walks the trail's hash chain from its first event to its head (server/records/README.md
// "Records"); exit 0 when it verifies, 1 when it does not (or cannot be read).
async function main() {
  if (process.argv.length > 2) throw new ConfigError('Usage: npm run audit:verify');
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const database = await attachDatabase(config, logger);
  // The owner reads it: no statement timeout (a batch of a large trail may take longer than a request's 4 s).
  const sequelize = createSequelize(database.ownerUrl, logger, { poolMax: 1, unbounded: true });
  const progress = createProgressLine('audit:verify');
  try {
    const check = await verifyAuditChain(sequelize, (rows) => progress(`${count(rows)} events checked`));
    if (check.ok) {
      const head = check.head.id === null ? 'empty' : `head #${check.head.id} ${check.head.hash}`;
      console.log(`The trail verifies: ${count(check.rows)} events, ${head}`);
    } else {
      console.log(`The trail does NOT verify at event #${check.firstBadId}: ${check.problem}`);
      process.exitCode = 1;
    }
  } finally {
    await sequelize.close().catch(() => undefined);
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(`audit:verify failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
