import 'dotenv/config';
import { ConfigError, loadConfig } from './core/config';
import { takeOverShutdownSignals } from './core/db/embedded-postgres';
import { createLogger } from './core/logger';
import { markStopping } from './core/stopping';
import { startServer } from './app/start-server';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  takeOverShutdownSignals();
  const running = await startServer(config, logger, { spaDir: config.spaDir });

  const shutdown = (signal: string) => {
    markStopping();
    logger.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => shutdown(signal));
  process.on('unhandledRejection', (reason) => {
    // Logged, not fatal: one failed background task must not take the webhook down with it.
    logger.error({ error: reason instanceof Error ? reason.name : typeof reason }, 'unhandled rejection');
  });
}

main().catch((error: unknown) => {
  console.error('Firm Chat failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
