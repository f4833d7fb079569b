import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TEmbeddedDatabase } from '../../server/core/db/embedded-postgres';
import type { TRunningServer } from '../../server/app/start-server';
import { startOnOwnCluster } from '../support/own-cluster';
import { cloudPayload, postWebhook, sql, statusItem, textMessage } from '../support/webhook';

// A frozen database (every PostgreSQL process stopped, as in a network partition) answers nothing:
// no server-side timeout can fire. A PostgreSQL of this file's own, so freezing it touches no other file.
let dataDir: string;
let pg: TEmbeddedDatabase;
let server: TRunningServer;
let frozen: number[] = [];

/** The postmaster and every process it started. */
function clusterPids(): number[] {
  const postmaster = Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 0);
  return [postmaster, ...children];
}

function freeze(): void {
  frozen = clusterPids();
  for (const pid of frozen) process.kill(pid, 'SIGSTOP');
}

function thaw(): void {
  for (const pid of frozen) process.kill(pid, 'SIGCONT');
  frozen = [];
}

beforeAll(async () => {
  ({ dataDir, pg, server } = await startOnOwnCluster('frozen'));
});
afterAll(async () => {
  thaw();
  await server?.close();
  await pg?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * The provider retries a delivery answered 503 until it is taken (here every half second, for 30 s):
 * right after a thaw on a loaded machine the pool may still be winning its connections back from the
 * workers that waited through the freeze, and a first retry can wait past the 4 s acquire limit.
 */
async function deliverAsTheProviderDoes(payload: Parameters<typeof postWebhook>[1]): ReturnType<typeof postWebhook> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await postWebhook(server.url, payload);
    if (answer.status !== 503 || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

it('with every PostgreSQL process stopped, webhooks answer 503 within 5 s, queued ones too; after thawing the retries are stored', async () => {
  // Warm: the pool holds open connections, as in production when the freeze begins.
  expect((await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.warm', '447700900123', 'warm')] }))).status).toBe(200);

  freeze();
  const deliveries = [
    cloudPayload({ messages: [textMessage('wamid.frozen-1', '447700900123', 'during the freeze 1')] }),
    cloudPayload({ messages: [textMessage('wamid.frozen-2', '447700900123', 'during the freeze 2')] }),
    cloudPayload({ messages: [textMessage('wamid.frozen-3', '447700900123', 'during the freeze 3')] }),
    cloudPayload({ statuses: [statusItem('wamid.warm', 'read')] }),
  ];
  const started = Date.now();
  const answers = await Promise.all(
    deliveries.map(async (payload) => ({ ...(await postWebhook(server.url, payload)), ms: Date.now() - started })),
  );
  const health = await fetch(`${server.url}/api/health`).then((r) => ({ status: r.status, ms: Date.now() - started }));
  console.log(`answers during the freeze: ${answers.map((a) => `${a.status} in ${a.ms} ms`).join(', ')}; health ${health.status}`);
  for (const answer of answers) {
    expect(answer.status).toBe(503);
    expect(answer.ms).toBeLessThan(5_000);
  }
  expect(health.status).toBe(503);
  thaw();

  for (const payload of deliveries.slice(0, 3)) {
    expect(await deliverAsTheProviderDoes(payload)).toMatchObject({ status: 200, json: { ok: true, received: 1 } });
  }
  const rows = await sql<{ body: string }>(
    pg.url(),
    "SELECT body FROM communications WHERE metadata->>'chat_msg_id' LIKE 'wamid.frozen-%' ORDER BY body",
  );
  expect(rows.map((r) => r.body)).toEqual(['during the freeze 1', 'during the freeze 2', 'during the freeze 3']);
}, 120_000);
