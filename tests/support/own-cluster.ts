import { chmod, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/core/config';
import { startEmbeddedPostgres, type TEmbeddedDatabase } from '../../server/core/db/embedded-postgres';
import { createLogger } from '../../server/core/logger';
import { startServer, type TRunningServer } from '../../server/app/start-server';
import { WEBHOOK_SECRET } from './webhook';

export const silentLogger = createLogger('silent');

/**
 * A PostgreSQL of the calling test file's own, so stopping or freezing it touches no other file,
 * and the app on it (webhook secret set). The caller stops both and removes `dataDir`.
 */
export async function startOnOwnCluster(name: string): Promise<{ dataDir: string; pg: TEmbeddedDatabase; server: TRunningServer }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `firm-chat-${name}-`));
  await chmod(dataDir, 0o755); // readable by the unprivileged user PostgreSQL runs as under root
  const pg = await startEmbeddedPostgres(dataDir, silentLogger, { throwaway: true });
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: pg.url(), PORT: '0', MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  return { dataDir, pg, server: await startServer(config, silentLogger) };
}
