import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TLogger } from '../logger';

// A server killed outright (SIGKILL, OOM) leaves its embedded PostgreSQL running on DATA_DIR, and
// the next start fails on the busy data directory. The server records its pid beside the cluster;
// a postmaster still running whose parent is not that recorded server is a leftover: stopped
// (fast shutdown, as Ctrl-C would) before the new start. One whose recording server is alive
// belongs to a second server on the same DATA_DIR: that is refused, never stopped.

const OWNER_FILE = 'embedded-postgres.owner';
const STOP_WAIT_MS = 15_000;

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    try {
      return Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }).trim()) || null;
    } catch {
      return null;
    }
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Stops a PostgreSQL left running on `databaseDir` by a server that died; refuses a live one's. */
export async function stopLeftoverPostgres(dataDir: string, databaseDir: string, logger: TLogger): Promise<void> {
  const postmaster = readPid(path.join(databaseDir, 'postmaster.pid'));
  if (!postmaster || !isAlive(postmaster)) return; // none, or a stale file PostgreSQL handles itself
  const owner = readPid(path.join(dataDir, OWNER_FILE));
  if (owner !== null && owner !== process.pid && isAlive(owner) && parentOf(postmaster) === owner) {
    throw new DataDirInUseError(
      `Another Firm Chat server (pid ${owner}) is running on ${dataDir}. Stop it first, or give this one another DATA_DIR.`,
    );
  }
  logger.warn({ pid: postmaster, databaseDir }, 'stopping a PostgreSQL left running by a server that did not shut down');
  process.kill(postmaster, 'SIGINT');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (isAlive(postmaster)) {
    if (Date.now() > deadline) throw new Error(`The PostgreSQL left running on ${databaseDir} (pid ${postmaster}) did not stop within ${STOP_WAIT_MS / 1000} s.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Records this process as the server of the cluster under `dataDir`. */
export function recordOwner(dataDir: string): void {
  if (existsSync(dataDir)) writeFileSync(path.join(dataDir, OWNER_FILE), `${process.pid}\n`);
}
