import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase, MIGRATIONS } from '../../server/db/migrate';
import { createSequelize } from '../../server/db/sequelize';
import { createLogger } from '../../server/logger';
import { createTestDatabase } from '../support/test-database';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('migrations', () => {
  it('apply to an empty database, creating every table and the chat message id unique index', async () => {
    const sequelize = createSequelize(database.url, createLogger('silent'));
    const applied = await migrateDatabase(sequelize, database.url);
    await sequelize.close();
    expect(applied).toEqual(MIGRATIONS.map((m) => m.name));
    const tables = await query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['cases', 'chat_receipts', 'clients', 'communications', 'schema_migrations', 'sessions', 'users']),
    );
    const indexes = await query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname = 'communications_chat_msg_id_key'");
    expect(indexes[0]?.indexdef).toMatch(/UNIQUE INDEX .*\(\(metadata ->> 'chat_msg_id'::text\)\)/);
  });

  it('are idempotent on restart: nothing re-applied, data kept', async () => {
    await query("INSERT INTO clients (name, phone, phone_digits, phone_last9) VALUES ('Kept', '+44 7700 900123', '447700900123', '700900123')");
    const sequelize = createSequelize(database.url, createLogger('silent'));
    expect(await migrateDatabase(sequelize, database.url)).toEqual([]);
    await sequelize.close();
    expect(await query('SELECT name FROM clients')).toEqual([{ name: 'Kept' }]);
  });

  it('run once when two instances start together', async () => {
    const fresh = await createTestDatabase();
    const a = createSequelize(fresh.url, createLogger('silent'));
    const b = createSequelize(fresh.url, createLogger('silent'));
    const [first, second] = await Promise.all([migrateDatabase(a, fresh.url), migrateDatabase(b, fresh.url)]);
    await Promise.all([a.close(), b.close()]);
    await fresh.drop();
    expect([...first, ...second]).toEqual(MIGRATIONS.map((m) => m.name));
  });
});
