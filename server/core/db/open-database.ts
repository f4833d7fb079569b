import type { Sequelize } from 'sequelize';
import type { TConfig } from '../config';
import type { TLogger } from '../logger';
import { ensureSearchLanguage } from './search-column';
import { startEmbeddedPostgres, type TEmbeddedDatabase } from './embedded-postgres';
import { migrateDatabase } from './migrate';
import { bindDatabase } from './db';
import { createSequelize } from './sequelize';

export type TDatabase = {
  sequelize: Sequelize;
  url: string;
  embedded: boolean;
  close: () => Promise<void>;
};

/** DATABASE_URL when set, otherwise the embedded server under DATA_DIR; migrated and ready. */
export async function openDatabase(config: TConfig, logger: TLogger): Promise<TDatabase> {
  let embedded: TEmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    // The database starts before the app listens, so its port must not be the app's.
    embedded = await startEmbeddedPostgres(config.dataDir, logger, { avoidPorts: [config.port] });
    url = embedded.url();
  }
  const sequelize = createSequelize(url, logger);
  try {
    bindDatabase(sequelize);
    // Schema changes get a connection of their own without the request timeouts.
    const migrator = createSequelize(url, logger, { poolMax: 1, unbounded: true });
    try {
      const applied = await migrateDatabase(migrator, url, {
        defaultCountry: config.defaultCountry,
        searchLanguage: config.searchLanguage,
      });
      if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
      await ensureSearchLanguage(migrator, config.searchLanguage, logger);
    } finally {
      await migrator.close().catch(() => undefined);
    }
  } catch (error) {
    await sequelize.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
  return {
    sequelize,
    url,
    embedded: Boolean(embedded),
    close: async () => {
      await sequelize.close().catch((err: unknown) => logger.warn({ err }, 'closing the pool failed'));
      await embedded?.stop();
    },
  };
}
