import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** `url` is the owner's (superuser) URL; `requestUrl` the same database as the run's request role. */
export type TTestDatabase = { url: string; requestUrl: string; drop: () => Promise<void> };

/** The role test servers' requests run as: created once per run (tests/support/global-postgres.ts). */
export const TEST_REQUEST_ROLE = { user: 'firm_chat_test_request', password: 'firm-chat-test-request' } as const;

async function createDatabase(template: string): Promise<TTestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const name = `firm_chat_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const requestUrl = new URL(url);
  requestUrl.username = TEST_REQUEST_ROLE.user;
  requestUrl.password = TEST_REQUEST_ROLE.password;
  return {
    url: url.toString(),
    requestUrl: requestUrl.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * A database of the caller's own on the run's PostgreSQL, migrated and otherwise empty: a copy of
 * the run's template (tests/support/global-postgres.ts), so the server's migrate step finds nothing
 * to do. `drop` removes it.
 */
export function createTestDatabase(): Promise<TTestDatabase> {
  return createDatabase(inject('pgTemplate'));
}

/** A database with no tables at all, for tests of the migrations themselves; `drop` removes it. */
export function createEmptyTestDatabase(): Promise<TTestDatabase> {
  return createDatabase('template0');
}
