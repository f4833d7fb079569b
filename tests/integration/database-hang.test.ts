import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(() => server?.stop());

it('when the database hangs, the webhook answers 503 within 5 s and stores the retry once it is back', async () => {
  const payload = cloudPayload({ messages: [textMessage('wamid.hang', '447700900123', 'during a hang')] });
  // Another session holds the table: every write waits, as on a stuck database.
  const blocker = new pg.Client({ connectionString: server.databaseUrl });
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE communications IN ACCESS EXCLUSIVE MODE');
  const started = Date.now();
  const during = await postWebhook(server.url, payload);
  const took = Date.now() - started;
  await blocker.query('ROLLBACK');
  await blocker.end();

  expect(during).toEqual({ status: 503, json: { ok: false, error: 'unavailable' } });
  expect(took).toBeLessThan(5_000);
  expect(await postWebhook(server.url, payload)).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
  expect(await sql(server.databaseUrl, "SELECT body FROM communications WHERE metadata->>'chat_msg_id' = 'wamid.hang'")).toEqual([
    { body: 'during a hang' },
  ]);
});
