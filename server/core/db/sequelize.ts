import pg from 'pg';
import { Sequelize } from 'sequelize';
import type { TLogger } from '../logger';
import { reportUnlessStopping } from '../stopping';

// Return timestamps as Date and bigint counts as numbers where they fit.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/**
 * pg's Client with an 'error' listener from its start. Sequelize adds its own once connect's promise
 * has resumed, but a server that accepts a connection and ends it in one packet (a shutdown at that
 * instant, as Ctrl-C to the process group causes) has pg emit 'error' before then, and an 'error' with
 * no listener ends the process. Nothing is hidden: the client is no longer queryable, so the connect
 * fails as against any database going away.
 */
class ListenedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}
/** pg as Sequelize reads it, with the Client above (everything else from pg itself). */
const pgForSequelize = Object.create(pg, { Client: { value: ListenedClient } }) as typeof pg;

/**
 * `statementTimeoutMs`: a statement's limit (4 s: requests and webhooks); the pool for long work
 * (open-database.ts) allows two minutes.
 * `unbounded`: no statement or query timeout, for the migrations and rebuilds run at start, which
 * take as long as the tables are large (a generated column over a million records takes minutes).
 */
export function createSequelize(
  databaseUrl: string,
  logger: TLogger,
  options: { poolMax?: number; unbounded?: boolean; statementTimeoutMs?: number } = {},
): Sequelize {
  const statementTimeout = options.statementTimeoutMs ?? 4_000;
  return new Sequelize(databaseUrl, {
    dialect: 'postgres',
    dialectModule: pgForSequelize,
    logging: false,
    // A hung or unreachable database must not hang the webhook: every wait is bounded below 5 s,
    // so the provider gets a 503 well inside its patience and retries; nothing is lost.
    pool: { max: options.poolMax ?? 10, min: 0, acquire: 4_000, idle: 10_000 },
    dialectOptions: options.unbounded
      ? { connectionTimeoutMillis: 4_000 }
      : {
          statement_timeout: statementTimeout,
          // The server's statement_timeout cannot fire on a frozen server (a network partition, stopped
          // processes): the client gives up too, a little later, so the server's own error wins otherwise.
          query_timeout: statementTimeout + 500,
          connectionTimeoutMillis: 4_000,
        },
    define: { underscored: true },
    // One attempt per statement: a statement that timed out may still have committed, so nothing is
    // re-run blindly. Idempotency comes from the unique index and the provider's own retries.
    retry: { max: 1 },
    hooks: {
      afterConnect: (connection) => {
        (connection as pg.Client).on('error', (err) =>
          reportUnlessStopping(
            () => logger.warn({ err: { message: err.message } }, 'database connection error'),
            () => logger.debug({ err: { message: err.message } }, 'database connection closed at shutdown'),
          ),
        );
      },
    },
  });
}
