import { afterAll, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { startServer, type TRunningServer } from '../../server/app/start-server';
import { loadConfig } from '../../server/core/config';
import { findFreePort } from '../../server/core/db/embedded-postgres';
import { createLogger } from '../../server/core/logger';
import { createClient } from '../../server/crm/clients';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { sql } from '../support/sql';
import { createTestDatabase, type TTestDatabase } from '../support/test-database';
import { createHttpClient } from '../support/test-server';
import { WEBHOOK_SECRET } from '../support/webhook';

// Receipts the provider posts while the app is down are not lost: the provider (and so the
// simulator) retries the webhook until the app is back, which applies each once (server/webhook/README.md "The
// inbound webhook": a retried delivery stores nothing twice). Short waits between tries here.

const KEY = 'retries-sim-key-0123456789';
const AMELIA = '447700900123';

let sim: ProviderSimulator | undefined;
let app: TRunningServer | undefined;
let database: TTestDatabase | undefined;
afterAll(async () => {
  await sim?.close();
  await app?.close();
  await database?.drop();
});

const recordOf = async (chatMsgId: string) =>
  (
    await sql<{ status: string; receipts: Record<string, string> }>(
      database!.url,
      `SELECT status, receipts FROM communications WHERE metadata->>'chat_msg_id' = $1`,
      [chatMsgId],
    )
  )[0]!;

it('receipts posted while the app is stopped arrive once it is started again, each applied once', async () => {
  sim = await startProviderSimulator({
    apiKey: KEY,
    webhookSecret: WEBHOOK_SECRET,
    autoReceipts: false,
    webhookRetryBaseMs: 50,
    webhookRetryCapMs: 200,
  });
  database = await createTestDatabase();
  // One port for both runs: the provider posts to the URL it was given, which comes back with the app.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    MESSAGING_API_KEY: KEY,
    MESSAGING_PROVIDER_URL: sim.url,
    MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET,
    SESSION_SECRET: 'retries-session-secret-0123456789abcdef',
    NEXT_PUBLIC_SITE_URL: 'https://chat.firm.example',
    DATABASE_URL: database.requestUrl,
    DATABASE_OWNER_URL: database.url,
    PORT: String(await findFreePort()),
  });
  app = await startServer(config, createLogger('silent'));
  sim.configure({ webhookUrl: `${app.url}/api/webhooks/chat` });
  await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
  const { client: staff } = createHttpClient(app.url);
  await staff.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  const amelia = await createClient({ name: 'Amelia Hart', phone: `+${AMELIA}` });
  const retried = (await staff.chat.send.mutate({ clientId: amelia.id, body: 'Your documents are ready.' })).metadata.chat_msg_id!;
  const once = (await staff.chat.send.mutate({ clientId: amelia.id, body: 'And the invoice.' })).metadata.chat_msg_id!;
  expect((await recordOf(retried)).status).toBe('sent');

  await app.close();
  app = undefined;
  // Without retries a receipt posted now is lost for good, as every one was before.
  sim.configure({ webhookRetries: false });
  expect((await sim.postReceipt(once, 'delivered', AMELIA)).status).toBe(0);
  expect(sim.retriesWaiting()).toBe(0);
  sim.configure({ webhookRetries: true });
  const answers = [
    await sim.postReceipt(retried, 'sent', AMELIA),
    await sim.postReceipt(retried, 'delivered', AMELIA),
    await sim.postReceipt(retried, 'read', AMELIA),
  ];
  expect(answers.map((a) => a.status)).toEqual([0, 0, 0]); // nobody answered
  expect(sim.retriesWaiting()).toBe(3);

  app = await startServer(config, createLogger('silent'));
  await sim.settleRetries();
  expect(sim.retriesWaiting()).toBe(0);
  const record = await recordOf(retried);
  expect(record.status).toBe('read');
  expect(Object.keys(record.receipts).sort()).toEqual(['delivered', 'read', 'sent']);
  expect((await recordOf(once)).status).toBe('sent');

  // Applied once: the same receipt again (a retry whose first answer was lost) changes nothing.
  const again = await sim.postReceipt(retried, 'read', AMELIA);
  expect(again).toEqual({ status: 200, json: { ok: true, statuses: 1, updated: 0 } });
  expect(await recordOf(retried)).toEqual(record);
});
