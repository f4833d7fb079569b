import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TConfig } from '../config';
import type { TLogger } from '../logger';
import { findDataDirClaimant } from './claim-data-dir';
import { embeddedSuperuserUrl, startEmbeddedPostgres } from './embedded-postgres';
import { EMBEDDED_REQUEST_ROLE } from './request-role';

// Maintenance scripts (backup, restore, audit:verify) reach the database as its owner, whether or
// not a server runs: server/backup/README.md "Backup and restore". A running server keeps its claim on DATA_DIR
// (claim-data-dir.ts), so a script joins its postmaster instead of starting a second one; with no
// server it starts the cluster itself (claiming the directory, so no server starts meanwhile).

const READY_WAIT_MS = 60_000;

export type TAttachedDatabase = {
  /** The owner's URL: the superuser's in embedded mode, DATABASE_OWNER_URL ?? DATABASE_URL otherwise. */
  ownerUrl: string;
  /** The role requests run as, when it is not the owner (granted its rights by migrateDatabase; embedded: firm_chat_app). */
  requestRole: string | undefined;
  /** How it was reached: a URL from the configuration, a running server's postmaster, or a cluster started here. */
  mode: 'url' | 'running-server' | 'started';
  /** The embedded server's pid when mode is 'running-server'. */
  serverPid?: number;
  /** Stops the cluster when this process started it; nothing otherwise. */
  close: () => Promise<void>;
};

const embeddedUrl = (port: number) => embeddedSuperuserUrl(port);

/**
 * postmaster.pid's fourth line is the port, its eighth the status PostgreSQL writes once it accepts
 * connections ("ready"): the readiness signal to wait for while a server is still starting.
 */
function readPostmaster(databaseDir: string): { port: number; ready: boolean } | null {
  try {
    const lines = readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
    const port = Number(lines[3]);
    return Number.isInteger(port) && port > 0 ? { port, ready: lines[7]?.trim() === 'ready' } : null;
  } catch {
    return null;
  }
}

/** A running server's postmaster on `dataDir`, waiting while it starts; null when no live process holds the directory. */
async function findRunningPostmaster(dataDir: string): Promise<{ port: number; pid: number } | null> {
  const deadline = Date.now() + READY_WAIT_MS;
  for (;;) {
    const pid = findDataDirClaimant(dataDir);
    if (pid === null) return null;
    const postmaster = readPostmaster(path.join(dataDir, 'pg'));
    if (postmaster?.ready) return { port: postmaster.port, pid };
    if (Date.now() > deadline)
      throw new Error(`The process holding ${dataDir} (pid ${pid}) has not started its PostgreSQL within ${READY_WAIT_MS / 1000} s.`);
    await sleep(200); // polling a file: PostgreSQL offers no other signal to a process that is not its child
  }
}

/** The database as its owner: see the comment at the top. */
export async function attachDatabase(config: TConfig, logger: TLogger): Promise<TAttachedDatabase> {
  if (config.databaseUrl) {
    const ownerUrl = config.databaseOwnerUrl ?? config.databaseUrl;
    const requestUser = decodeURIComponent(new URL(config.databaseUrl).username);
    const separate = ownerUrl !== config.databaseUrl && requestUser !== '';
    return { ownerUrl, requestRole: separate ? requestUser : undefined, mode: 'url', close: () => Promise.resolve() };
  }
  const running = await findRunningPostmaster(config.dataDir);
  if (running) {
    logger.info({ pid: running.pid, port: running.port }, 'joining the running server’s PostgreSQL');
    return {
      ownerUrl: embeddedUrl(running.port),
      requestRole: EMBEDDED_REQUEST_ROLE.user,
      mode: 'running-server',
      serverPid: running.pid,
      close: () => Promise.resolve(),
    };
  }
  const embedded = await startEmbeddedPostgres(config.dataDir, logger, { avoidPorts: [config.port] });
  return { ownerUrl: embedded.url(), requestRole: EMBEDDED_REQUEST_ROLE.user, mode: 'started', close: () => embedded.stop() };
}

/** Whether `dataDir` holds an initialised cluster (restore refuses one with tables, and removes only one it created). */
export const hasEmbeddedCluster = (dataDir: string) => existsSync(path.join(dataDir, 'pg', 'PG_VERSION'));
