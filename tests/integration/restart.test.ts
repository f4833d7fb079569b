import { afterAll, expect, it } from 'vitest';
import { INTERRUPTED_SEND_ERROR } from '../../server/chat/interrupted-sends';
import { loadConfig } from '../../server/config';
import { createLogger } from '../../server/logger';
import { startServer } from '../../server/start-server';
import { createTestDatabase } from '../support/test-database';
import { sql } from '../support/sql';

let drop: (() => Promise<void>) | undefined;
afterAll(() => drop?.());

it('on start-up, a send left pending by a stopped server is shown as unknown, a recent one is left alone', async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: database.url, PORT: '0' });
  const first = await startServer(config, createLogger('silent'));
  await sql(
    database.url,
    `INSERT INTO communications (type, direction, status, body, peer_phone, created_at) VALUES
       ('chat', 'outbound', 'pending', 'cut off mid-send', '447700900123', now() - interval '2 minutes'),
       ('chat', 'outbound', 'pending', 'another instance is sending this', '447700900123', now())`,
  );
  await first.close();

  const second = await startServer(config, createLogger('silent'));
  const rows = await sql<{ body: string; status: string; error: string | null }>(
    database.url,
    'SELECT body, status, error FROM communications ORDER BY id',
  );
  await second.close();
  expect(rows).toEqual([
    { body: 'cut off mid-send', status: 'failed', error: INTERRUPTED_SEND_ERROR },
    { body: 'another instance is sending this', status: 'pending', error: null },
  ]);
});
