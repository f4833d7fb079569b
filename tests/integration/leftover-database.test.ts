import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findFreePort } from '../../server/core/db/embedded-postgres';
import { startAppProcess, type TAppProcess } from '../support/app-process';

// A server killed outright (SIGKILL) leaves its embedded PostgreSQL running; the next start must
// stop it safely and come up, not fail until someone kills it by hand.
let dataDir: string;
let second: TAppProcess | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-leftover-'));
  await chmod(dataDir, 0o755);
});
afterAll(async () => {
  await second?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('after SIGKILL the next start stops the PostgreSQL left running on DATA_DIR and answers', async () => {
  const first = await startAppProcess({ dataDir, port: await findFreePort() });
  const postmaster = Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  // The server process itself (tsx runs it as a child of its own), killed outright.
  const serverPid = Number(readFileSync(path.join(dataDir, 'embedded-postgres.owner'), 'utf8'));
  process.kill(serverPid, 'SIGKILL');
  await first.exited;
  expect(isAlive(postmaster)).toBe(true); // left running, as after a crash

  second = await startAppProcess({ dataDir, port: await findFreePort() });
  expect((await fetch(`${second.url}/api/health`)).status).toBe(200);
  expect(isAlive(postmaster)).toBe(false);
  expect(second.output()).toContain('stopping a PostgreSQL left running by a server that did not shut down');
}, 120_000);

it('a second server on the same DATA_DIR while the first runs is refused, and the first keeps its database', async () => {
  expect(existsSync(path.join(dataDir, 'embedded-postgres.owner'))).toBe(true);
  await expect(startAppProcess({ dataDir, port: await findFreePort() })).rejects.toThrow(
    /Another Firm Chat server \(pid \d+\) is running on/,
  );
  expect((await fetch(`${second!.url}/api/health`)).status).toBe(200);
}, 60_000);

it('two servers started at the same moment on one fresh DATA_DIR: one runs, the other is refused clearly', async () => {
  const fresh = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-race-'));
  await chmod(fresh, 0o755);
  const results = await Promise.allSettled([
    startAppProcess({ dataDir: fresh, port: await findFreePort() }),
    startAppProcess({ dataDir: fresh, port: await findFreePort() }),
  ]);
  try {
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(String(refused.reason)).toMatch(/Another Firm Chat server \(pid \d+\) is running on|another server is starting on it/);
    const running = results.find((r): r is PromiseFulfilledResult<TAppProcess> => r.status === 'fulfilled')!.value;
    expect((await fetch(`${running.url}/api/health`)).status).toBe(200);
    await running.stop();
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
}, 120_000);
