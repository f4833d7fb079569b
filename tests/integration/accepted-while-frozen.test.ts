import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { loadConfig } from '../../server/core/config';
import { startEmbeddedPostgres, type TEmbeddedDatabase } from '../../server/core/db/embedded-postgres';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { createUser } from '../../server/auth/users';
import { startServer, type TRunningServer } from '../../server/app/start-server';
import { silentLogger } from '../support/own-cluster';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';

// The provider accepts a message just as the database freezes (every PostgreSQL process stopped):
// the accepted id cannot be written. The person is told it was accepted and not to send it again,
// never "try again"; when the database answers again, the id is written and the record is sent.
// A PostgreSQL of this file's own, so freezing it touches no other file.

const KEY = 'frozen-accept-key';
let dataDir: string;
let pg: TEmbeddedDatabase;
let sim: ProviderSimulator;
let server: TRunningServer;
let frozen: number[] = [];

function freeze(): void {
  const postmaster = Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((pid) => pid > 0);
  frozen = [postmaster, ...children];
  for (const pid of frozen) process.kill(pid, 'SIGSTOP');
}

function thaw(): void {
  for (const pid of frozen) process.kill(pid, 'SIGCONT');
  frozen = [];
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-frozen-accept-'));
  await chmod(dataDir, 0o755);
  pg = await startEmbeddedPostgres(dataDir, silentLogger);
  sim = await startProviderSimulator({ apiKey: KEY, autoReceipts: false });
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: pg.url(),
    PORT: '0',
    MESSAGING_API_KEY: KEY,
    MESSAGING_PROVIDER_URL: sim.url,
    SESSION_SECRET: 'frozen-accept-session-secret-0123456789',
  });
  server = await startServer(config, silentLogger, { providerTimeoutMs: 5_000 });
});
afterAll(async () => {
  thaw();
  await server?.close();
  await sim?.close();
  await pg?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

it('an id accepted while the database is frozen: the answer says not to resend, and the id is written when it returns', async () => {
  await createUser({ email: 'fay@firm.test', name: 'Fay Staff', role: 'staff', password: 'staff-password' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email: 'fay@firm.test', password: 'staff-password' });

  sim.configure({ answerDelayMs: 500 });
  const sending = client.chat.send.mutate({ to: '+44 7700 900777', body: 'Accepted in the dark' }).then(
    () => null,
    (e: unknown) => e as Error,
  );
  await sim.waitForRequest((r) => r.path === '/messages');
  freeze();
  const error = await sending;
  expect(error?.message).toMatch(/The provider accepted the message.*Do not send it again/);
  expect(error?.message).not.toMatch(/try again/i);
  thaw();

  await vi.waitFor(
    async () => {
      const rows = await sql<{ status: string; chat_msg_id: string | null }>(
        pg.url(),
        `SELECT status, metadata->>'chat_msg_id' AS chat_msg_id FROM communications WHERE body = 'Accepted in the dark'`,
      );
      expect(rows).toEqual([{ status: 'sent', chat_msg_id: sim.accepted[0]!.id }]);
    },
    { timeout: 30_000, interval: 200 },
  );
  expect(sim.accepted).toHaveLength(1);
}, 90_000);
