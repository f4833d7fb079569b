import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../server/core/db/embedded-postgres';
import { createLogger } from '../../server/core/logger';

declare module 'vitest' {
  // Augmenting vitest's ProvidedContext is declaration merging, which only an interface can do.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  export interface ProvidedContext {
    /** A superuser URL (database "postgres"); each test file creates its own database from it. */
    pgAdminUrl: string;
  }
}

/** One PostgreSQL for the run: DATABASE_URL when set, otherwise a throwaway embedded cluster. */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('pgAdminUrl', process.env.DATABASE_URL);
    return;
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-test-'));
  // Readable by the unprivileged postgres user embedded-postgres runs the server as under root.
  await chmod(dataDir, 0o755);
  const pg = await startEmbeddedPostgres(dataDir, createLogger('warn'), { persistent: false });
  project.provide('pgAdminUrl', pg.url());
  return async () => {
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
