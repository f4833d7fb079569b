import 'dotenv/config';
import { loadConfig } from '../core/config';
import { assertEmbeddedPostgresReachable, EmbeddedPostgresAccessError } from '../core/db/embedded-postgres-access';
import { buildSpa, spaIsStale } from './spa-build';

// `npm start`: build the SPA when a source file is newer than the last build, then run the server.

// A checkout the embedded PostgreSQL cannot reach stops here, at once, not after a build.
// (A bad configuration is reported by the server itself, below.)
// The SPA is built where the server will serve it from (SPA_DIR, else dist/client).
let spaDir: string | undefined;
try {
  const config = loadConfig();
  spaDir = config.spaDir;
  if (!config.databaseUrl) assertEmbeddedPostgresReachable(config.dataDir);
} catch (error) {
  if (error instanceof EmbeddedPostgresAccessError) {
    console.error(`Firm Chat failed to start: ${error.message}`);
    process.exit(1);
  }
}

if (spaIsStale(spaDir)) {
  console.log('Building the client…');
  await buildSpa('production', spaDir);
}
await import('../main');
