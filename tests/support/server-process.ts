import { spawn } from 'node:child_process';
import path from 'node:path';
import { findFreePort } from '../../server/core/db/embedded-postgres';
import { nodeArgsFor } from './server-build';

export type TServerProcess = {
  url: string;
  output: () => string;
  /** SIGKILL, as a crash would end it; resolves once it has ended. */
  crash: () => Promise<void>;
  /** SIGTERM (the server's own shutdown); resolves with its exit code. */
  stop: () => Promise<number | null>;
};

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The server alone (`server/main.ts`, one node process — the run's build of it, tests/support/server-build.ts: no SPA build, no wrapper
 * process in between), on a database of the caller's: another instance beside a test's own, one to
 * stop or kill and start again.
 */
export async function startServerProcess(env: Record<string, string>): Promise<TServerProcess> {
  const port = await findFreePort();
  let output = '';
  const child = spawn(process.execPath, nodeArgsFor('server/main.ts'), {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited early:\n${output}`);
    const ok = await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not answer /api/health in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    output: () => output,
    crash: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
