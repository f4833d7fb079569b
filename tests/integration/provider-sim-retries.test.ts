import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';

// The simulator retries a webhook post the app does not take, as the real provider does for days
// (short waits here): the same signed bytes until a 2xx, every refusal alike, bounded in time,
// switchable off, and dropped when the simulator closes. A stand-in webhook plays the app.

const SECRET = 'retry-sim-secret';
const CLIENT = '447700900123';
/** How the stand-in answers each post in turn ('drop': the connection is cut, no answer); then 200. */
let script: (number | 'drop')[] = [];
let posts: { body: string; signature: string | undefined }[] = [];
let hook: http.Server;
let hookUrl: string;
const sims: ProviderSimulator[] = [];

beforeAll(async () => {
  hook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      posts.push({ body: Buffer.concat(chunks).toString('utf8'), signature: req.headers['x-service-signature'] as string | undefined });
      const next = script.shift() ?? 200;
      if (next === 'drop') return void req.socket.destroy();
      res.writeHead(next, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: next === 200 }));
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
});
afterEach(async () => {
  for (const sim of sims.splice(0)) await sim.close();
  script = [];
  posts = [];
});
afterAll(() => new Promise((resolve) => hook?.close(resolve)));

async function simulator(options: {
  webhookRetryBaseMs?: number;
  webhookRetryCapMs?: number;
  webhookRetryForMs?: number;
  webhookRetries?: boolean;
}) {
  const sim = await startProviderSimulator({ apiKey: 'k', webhookSecret: SECRET, webhookUrl: hookUrl, autoReceipts: false, ...options });
  sims.push(sim);
  return sim;
}

const control = (sim: ProviderSimulator, path: string, body?: unknown) =>
  fetch(`${sim.url}/__sim/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

it('tries a post again after no answer or any non-2xx, the same signed bytes each time, until it is taken', async () => {
  const sim = await simulator({ webhookRetryBaseMs: 10, webhookRetryCapMs: 40 });
  script = [503, 'drop', 500, 401];
  const first = await sim.sendInbound(CLIENT, 'posted while the app was struggling');
  expect(first.status).toBe(503); // the caller sees the first try's answer
  expect(sim.retriesWaiting()).toBe(1);

  await sim.settleRetries();
  expect(posts).toHaveLength(5);
  expect(new Set(posts.map((p) => p.body)).size).toBe(1);
  expect(new Set(posts.map((p) => p.signature)).size).toBe(1);
  expect(posts[0]!.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(posts[0]!.body).toContain('posted while the app was struggling');
  expect(sim.retriesWaiting()).toBe(0);
  expect(await (await control(sim, 'retries')).json()).toEqual({ waiting: 0 });
});

it('a post taken at once is posted once; settle waits for first answers only, while a refused post waits for its retry', async () => {
  const sim = await simulator({ webhookRetryBaseMs: 60_000, webhookRetryCapMs: 60_000 });
  await sim.sendInbound(CLIENT, 'taken');
  expect(posts).toHaveLength(1);
  expect(sim.retriesWaiting()).toBe(0);

  script = [401];
  await sim.postReceipt('wamid.SIM1', 'delivered', CLIENT);
  await sim.settle(); // returns: a retry a minute away is not waited for
  expect(posts).toHaveLength(2);
  expect(sim.retriesWaiting()).toBe(1);
  expect(await (await control(sim, 'retries')).json()).toEqual({ waiting: 1 });
});

it('webhookRetries: false posts once (as an option, or set at run time, which also stops waiting retries)', async () => {
  const once = await simulator({ webhookRetries: false, webhookRetryBaseMs: 10, webhookRetryCapMs: 10 });
  script = [500];
  expect((await once.sendInbound(CLIENT, 'one try')).status).toBe(500);
  expect(once.retriesWaiting()).toBe(0);
  await once.settleRetries();
  expect(posts).toHaveLength(1);

  const sim = await simulator({ webhookRetryBaseMs: 10, webhookRetryCapMs: 20 });
  script = Array.from({ length: 1_000 }, () => 500);
  await sim.sendInbound(CLIENT, 'refused until retries are turned off');
  expect(sim.retriesWaiting()).toBe(1);
  expect((await control(sim, 'config', { webhookRetries: false })).status).toBe(200);
  await sim.settleRetries(); // the retry stops when its wait ends
  const tried = posts.length;
  await sim.sendInbound(CLIENT, 'one try again');
  expect(posts).toHaveLength(tried + 1);
  expect(sim.retriesWaiting()).toBe(0);
});

it('POST /__sim/config refuses retry settings that make no sense', async () => {
  const sim = await simulator({});
  expect((await control(sim, 'config', { webhookRetryBaseMs: 0 })).status).toBe(400);
  expect(await (await control(sim, 'config', { webhookRetryForMs: -1 })).json()).toEqual({
    ok: false,
    error: 'webhookRetryForMs: Too small: expected number to be >=0',
  });
  expect((await control(sim, 'config', { webhookRetries: 'no' })).status).toBe(400);
  expect((await control(sim, 'config', { webhookRetries: true, webhookRetryCapMs: 5_000 })).status).toBe(200);
});

it('gives up once the retry period since the first try is over', async () => {
  const sim = await simulator({ webhookRetryBaseMs: 10, webhookRetryCapMs: 20, webhookRetryForMs: 150 });
  script = Array.from({ length: 1_000 }, () => 500);
  await sim.sendInbound(CLIENT, 'never taken');
  await sim.settleRetries(); // ends by itself
  expect(posts.length).toBeGreaterThan(1);
  expect(sim.retriesWaiting()).toBe(0);
});

it('closing drops the waiting retries, leaving no wait behind', async () => {
  const sim = await simulator({ webhookRetryBaseMs: 60_000, webhookRetryCapMs: 60_000 });
  script = [503, 503];
  await sim.sendInbound(CLIENT, 'one');
  await sim.sendInbound(CLIENT, 'two');
  expect(sim.retriesWaiting()).toBe(2);
  await sim.close();
  await sim.settleRetries(); // at once, not a minute later: both waits were cancelled
  expect(sim.retriesWaiting()).toBe(0);
  expect(posts).toHaveLength(2);
});
