import 'dotenv/config';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../core/config';
import { assertEmbeddedPostgresReachable, EmbeddedPostgresAccessError } from '../core/db/embedded-postgres-access';
import { CLIENT_DIST_DIR } from '../http/spa-route';

// `npm start`: build the SPA when a source file is newer than the last build, then run the server.
const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCES = ['client', 'shared', 'vite.config.ts', 'package-lock.json'].map((p) => path.join(ROOT, p));

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(target).reduce((max, name) => Math.max(max, newestMtime(path.join(target, name))), stat.mtimeMs);
}

// A checkout the embedded PostgreSQL cannot reach stops here, at once, not after a build.
// (A bad configuration is reported by the server itself, below.)
try {
  const config = loadConfig();
  if (!config.databaseUrl) assertEmbeddedPostgresReachable(config.dataDir);
} catch (error) {
  if (error instanceof EmbeddedPostgresAccessError) {
    console.error(`Firm Chat failed to start: ${error.message}`);
    process.exit(1);
  }
}

const builtIndex = path.join(CLIENT_DIST_DIR, 'index.html');
const builtAt = existsSync(builtIndex) ? statSync(builtIndex).mtimeMs : 0;
if (SOURCES.some((source) => newestMtime(source) > builtAt)) {
  console.log('Building the client…');
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
}
await import('../main');
