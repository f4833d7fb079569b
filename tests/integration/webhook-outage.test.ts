import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startEmbeddedPostgres, type TEmbeddedDatabase } from '../../server/core/db/embedded-postgres';
import type { TRunningServer } from '../../server/app/start-server';
import { silentLogger, startOnOwnCluster } from '../support/own-cluster';
import { cloudPayload, postWebhook, sql, textMessage } from '../support/webhook';

// A PostgreSQL of this file's own, so stopping it affects no other test file.
let dataDir: string;
let pg: TEmbeddedDatabase;
let server: TRunningServer;
const logger = silentLogger;

beforeAll(async () => {
  ({ dataDir, pg, server } = await startOnOwnCluster('outage'));
});
afterAll(async () => {
  await server?.close();
  await pg?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

it('answers 503 while the database is down, stays up, and stores the retried delivery after it returns', async () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  const changes: unknown[] = [];
  server.events.subscribe((change) => changes.push(change));
  const payload = cloudPayload({ messages: [textMessage('wamid.outage', '447700900123', 'sent during the outage')] });
  expect((await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.warm', '447700900123', 'warm')] }))).status).toBe(200);
  // Heard before the stop: a load cut off by the stop would answer "resync" before the listener is back.
  await vi.waitFor(() => expect(JSON.stringify(changes)).toContain('"warm"'), { timeout: 5_000 });

  await pg.stop();
  const during = await postWebhook(server.url, payload);
  expect(during).toEqual({ status: 503, json: { ok: false, error: 'unavailable' } });
  expect((await fetch(`${server.url}/api/health`)).status).toBe(503);

  pg = await startEmbeddedPostgres(dataDir, logger, { port: pg.port });
  const retried = await postWebhook(server.url, payload);
  expect(retried).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
  const rows = await sql<{ body: string }>(pg.url(), "SELECT body FROM communications WHERE metadata->>'chat_msg_id' = 'wamid.outage'");
  expect(rows).toEqual([{ body: 'sent during the outage' }]);

  // The LISTEN connection came back by itself: live views are told to resync, then hear new messages.
  await vi.waitFor(() => expect(changes).toContainEqual({ resync: true }), { timeout: 15_000, interval: 200 });
  await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.after', '447700900123', 'after the restart')] }));
  await vi.waitFor(() => expect(JSON.stringify(changes)).toContain('after the restart'), { timeout: 5_000 });
  process.off('unhandledRejection', onRejection);
  expect(rejections).toEqual([]);
}, 40_000);

it('health answers up again after the restart', async () => {
  expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
});
