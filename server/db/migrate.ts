import pg from 'pg';
import type { QueryInterface, Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug, type RunnableMigration } from 'umzug';
import { initialSchema } from './migrations/0001-initial-schema';
import { readState } from './migrations/0002-read-state';
import { chatThreads } from './migrations/0003-chat-threads';
import { rateLimits } from './migrations/0004-rate-limits';

export type TMigration = RunnableMigration<QueryInterface>;

/** In order; append new migrations, never edit an applied one. */
export const MIGRATIONS: TMigration[] = [initialSchema, readState, chatThreads, rateLimits];

// Any constant works; it only has to be the same for every instance of this app.
const MIGRATION_LOCK_KEY = 7_340_019;

/**
 * Applies pending migrations. An advisory lock held on a separate connection makes
 * two instances starting together run them once, one after the other.
 */
export async function migrateDatabase(sequelize: Sequelize, databaseUrl: string): Promise<string[]> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const umzug = new Umzug({
      migrations: MIGRATIONS,
      context: sequelize.getQueryInterface(),
      storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
      logger: undefined,
    });
    const applied = await umzug.up();
    return applied.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}
