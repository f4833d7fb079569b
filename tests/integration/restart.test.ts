import { afterAll, expect, it } from 'vitest';
import { INTERRUPTED_SEND_ERROR } from '../../server/messaging/interrupted-sends';
import { loadConfig } from '../../server/core/config';
import { createLogger } from '../../server/core/logger';
import { scheduleSendSweeps } from '../../server/maintenance/sweep-abandoned-sends';
import { startServer } from '../../server/app/start-server';
import { createTestDatabase } from '../support/test-database';
import { sql } from '../support/sql';

let drop: (() => Promise<void>) | undefined;
afterAll(() => drop?.());

it('on start-up, a send left pending by a stopped server is shown as unknown, a recent one is left alone', async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: database.url, PORT: '0' });
  const first = await startServer(config, createLogger('silent'));
  // A send's lease is its record's updated_at, renewed while it is in flight.
  await sql(
    database.url,
    `INSERT INTO communications (type, direction, status, body, peer_phone, created_at, updated_at) VALUES
       ('chat', 'outbound', 'pending', 'cut off mid-send', '447700900123', now() - interval '3 minutes', now() - interval '3 minutes'),
       ('chat', 'outbound', 'pending', 'another instance is sending this', '447700900123', now() - interval '3 minutes', now())`,
  );
  await first.close();

  const second = await startServer(config, createLogger('silent'));
  const rows = await sql<{ body: string; status: string; error: string | null; outcome: string | null }>(
    database.url,
    `SELECT body, status, error, metadata->>'outcome' AS outcome FROM communications ORDER BY id`,
  );
  await second.close();
  expect(rows).toEqual([
    { body: 'cut off mid-send', status: 'pending', outcome: 'unknown', error: INTERRUPTED_SEND_ERROR },
    { body: 'another instance is sending this', status: 'pending', outcome: null, error: null },
  ]);
});

it('while running, the sweeper marks a send whose lease ran out as unknown, and announces it', async () => {
  const database = await createTestDatabase();
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: database.url, PORT: '0' });
  const server = await startServer(config, createLogger('silent'));
  try {
    await sql(
      database.url,
      `INSERT INTO communications (type, direction, status, body, peer_phone) VALUES ('chat', 'outbound', 'pending', 'restarted too soon', '447700900123')`,
    );
    const announced = new Promise<number[]>((resolve) => {
      const stop = scheduleSendSweeps(
        createLogger('silent'),
        (ids) => {
          stop();
          resolve(ids);
        },
        { everyMs: 50, abandonedMs: 200 },
      );
    });
    const [id] = await announced;
    const [row] = await sql<{ status: string; outcome: string | null }>(
      database.url,
      `SELECT status, metadata->>'outcome' AS outcome FROM communications WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({ status: 'pending', outcome: 'unknown' });
  } finally {
    await server.close();
    await database.drop();
  }
});
