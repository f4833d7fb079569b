import pg from 'pg';
import { Sequelize } from 'sequelize';
import type { TLogger } from '../logger';

// Return timestamps as Date and bigint counts as numbers where they fit.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export function createSequelize(databaseUrl: string, logger: TLogger, options: { poolMax?: number } = {}): Sequelize {
  return new Sequelize(databaseUrl, {
    dialect: 'postgres',
    dialectModule: pg,
    logging: false,
    pool: { max: options.poolMax ?? 10, min: 0, acquire: 5_000, idle: 10_000 },
    dialectOptions: {
      // A hung database must not hang the webhook: fail fast, answer 503, the provider retries.
      statement_timeout: 5_000,
      connectionTimeoutMillis: 5_000,
    },
    define: { underscored: true },
    hooks: {
      afterConnect: (connection) => {
        (connection as pg.Client).on('error', (err) => logger.warn({ err: { message: err.message } }, 'database connection error'));
      },
    },
  });
}
