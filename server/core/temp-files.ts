import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { isProcessRunning } from './db/claim-data-dir';

// Uploads, downloads from the provider and exports are spooled to a directory of their own under
// the system's temporary directory and removed when done; a process killed outright (SIGKILL, the
// machine losing power) leaves them behind, up to 100 MB each. This finds them by their prefix and
// removes those nobody can still be using, so two instances sharing a machine never pull a file
// from under each other.

/** The temporary directories this app makes, by what they hold. */
export const TEMP_DIR_PREFIXES = {
  upload: 'firm-chat-upload-',
  export: 'firm-chat-export-',
  // The download queue's DOWNLOAD_SPOOL_PREFIX, written out rather than imported, so that the queue
  // may make its directories with makeTempDir without an import cycle (a test holds the two equal).
  download: 'firm-chat-download-',
} as const;
export type TTempDirKind = keyof typeof TEMP_DIR_PREFIXES;

/**
 * A directory made with makeTempDir carries the machine it was made on (a hash of the host name: a
 * container has its own) and the process's pid, so a sweep can tell whether its maker still runs.
 * mkdtemp adds six letters or digits.
 */
const TEMP_DIR = /^firm-chat-(upload|export|download)-(?:h([0-9a-f]{8})-p(\d{1,10})-)?[A-Za-z0-9]{6}$/;
const HOST_TAG = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);

/**
 * An untagged directory (from code that does not tag its directories yet) is in use while anything
 * in it changes: an upload writes at least every 30 s or is cut off (the upload idle limit), and a
 * download is over within its deadline (under half an hour for the largest file). Their longest
 * quiet spell — a spooled upload waiting its turn to be copied into the database — is a minute or
 * two. An hour without a change is a directory nobody is writing to; a file still being read when
 * it is removed stays readable to its reader, as an open file does.
 */
export const UNTAGGED_STALE_MS = 60 * 60 * 1000;
/** A tagged directory whose pid runs is kept this long without a change: the pid may be another process's by now. */
export const LIVE_PID_STALE_MS = 24 * 60 * 60 * 1000;

/** Makes a temporary directory of this kind, tagged with this machine and process. */
export function makeTempDir(kind: TTempDirKind): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), `${TEMP_DIR_PREFIXES[kind]}h${HOST_TAG}-p${process.pid}-`));
}

export type TSweepOptions = {
  /** Where to look (os.tmpdir() unless a test says otherwise). */
  dir?: string;
  now?: number;
  /** When this process started: a directory tagged with its own pid made before then is an earlier process's. */
  startedAt?: number;
  isRunning?: (pid: number) => boolean;
};

/** The newest change to the directory or to anything directly in it (the app's spool directories are flat). */
async function lastChangeOf(dir: string, stats: Stats): Promise<number> {
  let newest = stats.mtimeMs;
  for (const entry of await readdir(dir)) {
    const entryStats = await lstat(path.join(dir, entry)).catch(() => null);
    if (entryStats) newest = Math.max(newest, entryStats.mtimeMs);
  }
  return newest;
}

/**
 * Removes this app's temporary directories left by processes that are gone:
 * - tagged with this machine: at once when its pid no longer runs, or is this process's own pid but
 *   the directory is older than this process (a restart that was given the same pid, as in a
 *   container); otherwise after LIVE_PID_STALE_MS without a change;
 * - untagged, or tagged by another machine sharing the directory: after UNTAGGED_STALE_MS without a
 *   change.
 * Only directories of this user, never a symbolic link; anything else is left alone. Returns the
 * paths removed.
 */
export async function sweepTempFiles(options: TSweepOptions = {}): Promise<string[]> {
  const root = options.dir ?? os.tmpdir();
  const now = options.now ?? Date.now();
  const startedAt = options.startedAt ?? performance.timeOrigin;
  const isRunning = options.isRunning ?? isProcessRunning;
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of await readdir(root)) {
    const match = TEMP_DIR.exec(name);
    if (!match) continue;
    const dir = path.join(root, name);
    try {
      const stats = await lstat(dir);
      if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) continue;
      const lastChange = await lastChangeOf(dir, stats);
      const [, , host, pidText] = match;
      const pid = Number(pidText);
      let gone: boolean;
      if (host === HOST_TAG && pid === process.pid) gone = lastChange < startedAt;
      else if (host === HOST_TAG) gone = !isRunning(pid) || now - lastChange > LIVE_PID_STALE_MS;
      else gone = now - lastChange > UNTAGGED_STALE_MS;
      if (!gone) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch (error) {
      // Removed meanwhile by its own process: nothing to do. Anything else is for the caller to log.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return removed;
}
