import { createTRPCClient, httpLink } from '@trpc/client';
import superjson from 'superjson';
import { loadConfig } from '../../server/core/config';
import { createLogger, type TLogger } from '../../server/core/logger';
import { createUser } from '../../server/auth/users';
import { startServer, type TRunningServer } from '../../server/app/start-server';
import type { AppRouter } from '../../server/app/app-router';
import { createTestDatabase } from './test-database';

/** `databaseUrl` is the owner's (assertions, bulk loads); `requestDatabaseUrl` the role requests run as. */
export type TTestServer = TRunningServer & { databaseUrl: string; requestDatabaseUrl: string; stop: () => Promise<void> };

/** The real Express app on a random port, on a fresh database of its own. */
export async function startTestServer(
  env: Record<string, string> = {},
  logger?: TLogger,
  options: Parameters<typeof startServer>[2] = {},
): Promise<TTestServer> {
  const database = await createTestDatabase();
  // Requests run as a lesser role, the owner migrates: as a deployment with both URLs (server/records/README.md "Records").
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    ...env,
    DATABASE_URL: database.requestUrl,
    DATABASE_OWNER_URL: database.url,
    PORT: '0',
  });
  const running = await startServer(config, logger ?? createLogger(config.logLevel), options);
  return {
    ...running,
    databaseUrl: database.url,
    requestDatabaseUrl: database.requestUrl,
    stop: async () => {
      await running.close();
      await database.drop();
    },
  };
}

/** A typed tRPC client over real HTTP that keeps its own cookie jar, like one browser. */
export function createHttpClient(baseUrl: string, extraHeaders: Record<string, string> = {}) {
  const jar = new Map<string, string>();
  const lastSetCookies: string[] = [];
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${baseUrl}/trpc`,
        transformer: superjson,
        headers: () => ({ ...extraHeaders, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') }),
        fetch: async (url, init) => {
          const res = await fetch(url as string, init);
          lastSetCookies.length = 0;
          for (const header of res.headers.getSetCookie()) {
            lastSetCookies.push(header);
            const [pair] = header.split(';');
            const [name, ...rest] = (pair ?? '').split('=');
            const value = rest.join('=');
            if (!name) continue;
            if (value === '' || /expires=Thu, 01 Jan 1970/i.test(header)) jar.delete(name.trim());
            else jar.set(name.trim(), value);
          }
          return res;
        },
      }),
    ],
  });
  return { client, jar, lastSetCookies };
}

/** Adds Sam Staff (staff) to the server's database and returns a client signed in as them. */
export async function signInNewStaff(server: TTestServer): Promise<ReturnType<typeof createHttpClient>['client']> {
  await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  return client;
}
