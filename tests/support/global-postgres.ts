import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../server/core/config';
import { startEmbeddedPostgres } from '../../server/core/db/embedded-postgres';
import { openDatabase } from '../../server/core/db/open-database';
import { createLogger } from '../../server/core/logger';
import { TEST_REQUEST_ROLE } from './test-database';

declare module 'vitest' {
  // Augmenting vitest's ProvidedContext is declaration merging, which only an interface can do.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions -- vitest's ProvidedContext is an interface
  export interface ProvidedContext {
    /** A superuser URL (database "postgres"); each test file creates its own database from it. */
    pgAdminUrl: string;
    /** The run's migrated database, which test databases are copied from (tests/support/test-database.ts). */
    pgTemplate: string;
  }
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/**
 * Migrates one database as the server does on start-up (its own openDatabase), so a copy of it
 * leaves the server's migrate step nothing to do, and copying is many times quicker than migrating.
 */
async function createMigratedTemplate(adminUrl: string): Promise<string> {
  const name = `firm_chat_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE template0`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase(loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url.toString(), PORT: '0' }), createLogger('silent'));
  await database.close();
  // PostgreSQL copies a database only while nobody is connected to it: nobody may connect from now on.
  await adminQuery(adminUrl, `ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
  return name;
}

// The role test servers' requests run as (tests/support/test-database.ts): neither superuser nor
// owner, granted its rights by the server's own start-up, as a deployment's would be.
const CREATE_REQUEST_ROLE = `DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${TEST_REQUEST_ROLE.user}') THEN
    CREATE ROLE ${TEST_REQUEST_ROLE.user} LOGIN PASSWORD '${TEST_REQUEST_ROLE.password}' NOSUPERUSER NOCREATEDB NOCREATEROLE;
  END IF;
END $$`;

/** One PostgreSQL for the run (DATABASE_URL when set, otherwise a throwaway embedded cluster) and its migrated template. */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  let stopCluster: () => Promise<void> = () => Promise.resolve();
  if (!adminUrl) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-test-'));
    // Readable by the unprivileged postgres user embedded-postgres runs the server as under root.
    await chmod(dataDir, 0o755);
    const cluster = await startEmbeddedPostgres(dataDir, createLogger('warn'), { persistent: false, throwaway: true });
    adminUrl = cluster.url();
    stopCluster = async () => {
      await cluster.stop();
      await rm(dataDir, { recursive: true, force: true });
    };
  }
  await adminQuery(adminUrl, CREATE_REQUEST_ROLE);
  const template = await createMigratedTemplate(adminUrl).catch(async (error: unknown) => {
    await stopCluster();
    throw error;
  });
  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);
  return async () => {
    try {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${template}`);
    } finally {
      await stopCluster();
    }
  };
}
