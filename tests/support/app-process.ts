import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findFreePort } from '../../server/core/db/embedded-postgres';
import { nodeArgsFor } from './server-build';

export type TAppProcess = {
  url: string;
  output: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
  /** The signal to the app's whole process group, as a terminal's Ctrl-C sends it (with `ownProcessGroup`). */
  killGroup: (signal: NodeJS.Signals) => void;
  /** SIGKILL to the server, as a crash would end it. */
  crash: () => Promise<void>;
  stop: () => Promise<void>;
};

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs a TypeScript script as `npm run` would (one node process, repo root; tests/support/server-build.ts); resolves with its exit code and output. */
export function runScript(script: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(process.execPath, [...nodeArgsFor(script), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

export type TAppProcessOptions = {
  env?: Record<string, string>;
  port?: number;
  /** Run `npm run seed:demo` on the data dir first (live mode seeds nothing by itself). */
  seedDemo?: boolean;
  /** An existing data dir (kept on stop); otherwise a fresh one, removed on stop. */
  dataDir?: string;
  /** Its own process group (the embedded PostgreSQL in it), as a terminal starts `npm start`. */
  ownProcessGroup?: boolean;
};

/** `npm start` as a user runs it (client build when stale, embedded PostgreSQL, demo seed), on a fresh data dir. */
export async function startAppProcess(options: TAppProcessOptions = {}): Promise<TAppProcess> {
  const env = options.env ?? {};
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'firm-chat-e2e-')));
  if (ownDataDir) await chmod(dataDir, 0o755);
  const port = options.port ?? (await findFreePort());
  const childEnv = { ...process.env, DATABASE_URL: '', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env };
  if (options.seedDemo) {
    const seeded = await runScript('server/scripts/seed-demo.ts', childEnv);
    if (seeded.code !== 0) throw new Error(`seed:demo failed:\n${seeded.output}`);
  }
  let output = '';
  const child: ChildProcess = spawn(process.execPath, nodeArgsFor('server/scripts/start.ts'), {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? false,
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 150_000;
  // A start that fails leaves nothing behind: the app (and its database) stopped, its own data dir removed.
  const giveUp = async (why: string): Promise<never> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    throw new Error(`${why}:\n${output}`);
  };
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) await giveUp('the app exited early');
    const ok = await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) await giveUp('the app did not answer /api/health in time');
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    output: () => output,
    exited,
    kill: (signal) => child.kill(signal),
    killGroup: (signal) => {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    },
    crash: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
