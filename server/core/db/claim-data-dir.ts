import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TLogger } from '../logger';

// One server per DATA_DIR. The server claims the directory by creating a file holding its pid
// (an exclusive link: of two servers starting at once, one wins), and gives it up when it stops.
// A claim whose process is gone is stale and taken over; the PostgreSQL such a server left running
// (killed outright: SIGKILL, OOM) is then stopped, fast shutdown as Ctrl-C would, before the new
// start. A claim whose server is alive is refused, never stopped.

const CLAIM_FILE = 'embedded-postgres.owner';
const STOP_WAIT_MS = 15_000;

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

/** Whether a process with this pid runs (on this machine): signal 0 checks without sending anything. */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `pid` is a live Node process (a recycled pid now running something else is not a server). */
function isLiveServer(pid: number): boolean {
  if (!isProcessRunning(pid)) return false;
  try {
    return /node|tsx/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true; // no /proc (macOS): trust the pid
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

/** The pid of the live process that holds `dataDir`'s claim (a running server, or a script that started the cluster), or null. */
export function findDataDirClaimant(dataDir: string): number | null {
  const owner = readPid(path.join(dataDir, CLAIM_FILE));
  return owner !== null && owner !== process.pid && isLiveServer(owner) ? owner : null;
}

/** Claims `dataDir` for this process, taking over a stale claim; throws DataDirInUseError for a live one. */
export function claimDataDir(dataDir: string): void {
  const file = path.join(dataDir, CLAIM_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    // The pid is written to a file of our own, then hard-linked into place: the claim appears with
    // its pid already in it. (Created empty and then written, a server starting at the same moment
    // could read it empty, take it for stale, and remove it: two servers, one directory.)
    const own = `${file}.${process.pid}`;
    writeFileSync(own, `${process.pid}\n`);
    try {
      linkSync(own, file);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(own);
    }
    const owner = readPid(file);
    if (owner === process.pid) return;
    if (owner !== null && isLiveServer(owner)) {
      throw new DataDirInUseError(
        `Another Firm Chat server (pid ${owner}) is running on ${dataDir}. Stop it first, or give this one another DATA_DIR.`,
      );
    }
    // Stale: its server is gone. Whoever removes it first retries the exclusive create.
    try {
      unlinkSync(file);
    } catch {
      // removed by a server starting at the same moment
    }
  }
  throw new DataDirInUseError(`Could not claim ${dataDir}: another server is starting on it at the same moment.`);
}

/** Gives up the claim, if it is still this process's (synchronous: also called at exit). */
export function releaseDataDir(dataDir: string): void {
  const file = path.join(dataDir, CLAIM_FILE);
  if (readPid(file) === process.pid) {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  }
}

/** With the claim held: a postmaster still running on `databaseDir` was left by a dead server. Stops it. */
export async function stopLeftoverPostgres(databaseDir: string, logger: TLogger): Promise<void> {
  const postmaster = readPid(path.join(databaseDir, 'postmaster.pid'));
  if (!postmaster || !isProcessRunning(postmaster)) return; // none, or a stale file PostgreSQL handles itself
  logger.warn({ pid: postmaster, databaseDir }, 'stopping a PostgreSQL left running by a server that did not shut down');
  process.kill(postmaster, 'SIGINT');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (isProcessRunning(postmaster)) {
    if (Date.now() > deadline)
      throw new Error(`The PostgreSQL left running on ${databaseDir} (pid ${postmaster}) did not stop within ${STOP_WAIT_MS / 1000} s.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
