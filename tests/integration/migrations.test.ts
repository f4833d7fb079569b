import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_NAMES, migrateDatabase } from '../../server/core/db/migrate';
import { createSequelize } from '../../server/core/db/sequelize';
import { createLogger } from '../../server/core/logger';
import { sql } from '../support/sql';
import { createEmptyTestDatabase, createTestDatabase, type TTestDatabase } from '../support/test-database';
import { match } from '../support/matchers';

let database: TTestDatabase;
beforeAll(async () => {
  database = await createEmptyTestDatabase();
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
    expect(applied).toEqual(MIGRATION_NAMES);
    const tables = await query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      match.arrayContaining(['cases', 'chat_receipts', 'clients', 'communications', 'schema_migrations', 'sessions', 'users']),
    );
    const indexes = await query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname = 'communications_chat_msg_id_key'");
    expect(indexes[0]?.indexdef).toMatch(/UNIQUE INDEX .*\(\(metadata ->> 'chat_msg_id'::text\)\)/);
  });

  it('are idempotent on restart: nothing re-applied, data kept', async () => {
    await query("INSERT INTO clients (name) VALUES ('Kept')");
    const sequelize = createSequelize(database.url, createLogger('silent'));
    expect(await migrateDatabase(sequelize, database.url)).toEqual([]);
    await sequelize.close();
    expect(await query('SELECT name FROM clients')).toEqual([{ name: 'Kept' }]);
  });

  it("give each existing client its phone as primary number, national formats read in the firm's country", async () => {
    const fresh = await createEmptyTestDatabase();
    const sequelize = createSequelize(fresh.url, createLogger('silent'));
    try {
      await migrateDatabase(sequelize, fresh.url, { to: '0004-rate-limits' });
      await sql(
        fresh.url,
        `INSERT INTO clients (name, phone, phone_digits, phone_last9) VALUES
        ('International', '+44 7700 900123', '447700900123', '700900123'),
        ('National', '07700 900789', '07700900789', '700900789'),
        ('Double zero', '0044 7700 900456', '447700900456', '700900456'),
        ('Unreadable', '12345678', '12345678', '12345678')`,
      );
      expect(await migrateDatabase(sequelize, fresh.url, { defaultCountry: 'GB' })).toEqual(MIGRATION_NAMES.slice(4));
      const numbers = await sql(
        fresh.url,
        `SELECT c.name, n.digits, n."primary", n.last9 FROM client_numbers n JOIN clients c ON c.id = n.client_id ORDER BY c.id`,
      );
      expect(numbers).toEqual([
        { name: 'International', digits: '447700900123', primary: true, last9: '700900123' },
        { name: 'National', digits: '447700900789', primary: true, last9: '700900789' },
        { name: 'Double zero', digits: '447700900456', primary: true, last9: '700900456' },
        { name: 'Unreadable', digits: '12345678', primary: true, last9: '12345678' },
      ]);
    } finally {
      await sequelize.close();
      await fresh.drop();
    }
  });

  it('run once when two instances start together', async () => {
    const fresh = await createEmptyTestDatabase();
    const a = createSequelize(fresh.url, createLogger('silent'));
    const b = createSequelize(fresh.url, createLogger('silent'));
    const [first, second] = await Promise.all([migrateDatabase(a, fresh.url), migrateDatabase(b, fresh.url)]);
    await Promise.all([a.close(), b.close()]);
    await fresh.drop();
    expect([...first, ...second]).toEqual(MIGRATION_NAMES);
  });
});

// The other test files run on copies of one database migrated at the start of the run: they test
// the schema a fresh database gets only if that copy is the same, and already complete.
describe("the run's migrated template", () => {
  const schemaOf = (url: string) =>
    sql(
      url,
      `SELECT 'column' AS kind, table_name || '.' || column_name AS name,
              data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') || ' ' || coalesce(generation_expression, '') AS definition
         FROM information_schema.columns WHERE table_schema = 'public'
       UNION ALL
       SELECT 'index', indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'
       UNION ALL
       SELECT 'constraint', conrelid::regclass || '.' || conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
       ORDER BY 1, 2`,
    );

  it('gives each test a database the migrations have nothing left to do on, with the schema migrating an empty one gives', async () => {
    const [fresh, copy] = await Promise.all([createEmptyTestDatabase(), createTestDatabase()]);
    const onFresh = createSequelize(fresh.url, createLogger('silent'));
    const onCopy = createSequelize(copy.url, createLogger('silent'));
    try {
      expect(await migrateDatabase(onCopy, copy.url)).toEqual([]);
      expect(await migrateDatabase(onFresh, fresh.url)).toEqual(MIGRATION_NAMES);
      const [migrated, copied] = [await schemaOf(fresh.url), await schemaOf(copy.url)];
      expect(migrated.length).toBeGreaterThan(0);
      expect(copied).toEqual(migrated);
    } finally {
      await Promise.all([onFresh.close(), onCopy.close()]);
      await Promise.all([fresh.drop(), copy.drop()]);
    }
  });
});
