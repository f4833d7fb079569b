import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../server/core/config';
import { findFreePort } from '../../server/core/db/embedded-postgres';
import { openDatabase } from '../../server/core/db/open-database';
import { createLogger } from '../../server/core/logger';
import { query, ROOT, SECRET, startProcess } from './bench-support';

// The app the benchmarks measure, as its own process (the real server, `server/main.ts`) on a
// database of its own: migrating that database, starting the app, and starting it with a member of
// staff signed in and one client.

export const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
/** The one logger of a run: warnings only, so the figures stay readable. */
export const benchLogger = createLogger('warn');

/** Runs the app's migrations on a database and closes it again. */
export async function migrateOnly(url: string) {
  const database = await openDatabase(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'warn' }), benchLogger);
  await database.close();
}

/** The app as its own process on `databaseUrl` (in production mode, no provider key). */
export async function startApp(databaseUrl: string) {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const running = await startProcess(
    TSX,
    ['server/main.ts'],
    {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      MESSAGING_WEBHOOK_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      MESSAGING_API_KEY: '',
      NODE_ENV: 'production',
    },
    `${url}/api/health`,
  );
  return { url, stop: running.stop };
}

/**
 * The app as its own process on `url` (migrated), answering `/api/health`: its address, the
 * environment it was given, and the server's pid (tsx runs it as a child of its own) for memory.
 */
export async function startBenchServer(url: string, extraEnv: Record<string, string> = {}) {
  const port = await findFreePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: url,
    PORT: String(port),
    MESSAGING_WEBHOOK_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    SESSION_SECRET: 'bench-session-secret-0123456789abcdef',
    NODE_ENV: 'production',
    ...extraEnv,
  };
  const app = await startProcess(TSX, ['server/main.ts'], env, `${appUrl}/api/health`);
  try {
    const serverPid = Number(readFileSync(`/proc/${app.child.pid}/task/${app.child.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
    return { app, appUrl, env, serverPid };
  } catch (error) {
    await app.stop();
    throw error;
  }
}

/**
 * The app as its own process on `url` (migrated), with one member of staff signed in and one client:
 * the server's pid (tsx runs it as a child of its own) for memory, and the session cookie.
 */
export async function startSignedInApp(url: string, extraEnv: Record<string, string> = {}) {
  const { app, appUrl, env, serverPid } = await startBenchServer(url, extraEnv);
  try {
    const { runScript } = await import('../support/app-process');
    await runScript('server/scripts/user-add.ts', { ...process.env, ...env }, [
      '--email',
      'bench@firm.test',
      '--name',
      'Bench',
      '--role',
      'staff',
      '--password',
      'bench-password-123',
    ]);
    await query(url, "INSERT INTO clients (name, created_at, updated_at) VALUES ('Bench Client', now(), now())");
    await query(url, 'INSERT INTO client_numbers (client_id, digits, "primary") SELECT id, \'447700900123\', true FROM clients');
    const [client] = await query<{ id: number }>(url, 'SELECT id FROM clients LIMIT 1');
    const signIn = await fetch(`${appUrl}/trpc/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: { email: 'bench@firm.test', password: 'bench-password-123' } }),
    });
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    return { appUrl, serverPid, cookie, clientId: client!.id, stop: app.stop };
  } catch (error) {
    await app.stop();
    throw error;
  }
}
