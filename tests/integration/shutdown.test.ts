import { afterAll, beforeAll, expect, it } from 'vitest';
import { findFreePort } from '../../server/core/db/embedded-postgres';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { startAppProcess, type TAppProcess } from '../support/app-process';
import { createHttpClient } from '../support/test-server';

let sim: ProviderSimulator;
let app: TAppProcess;

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: 'shutdown-key', autoReceipts: false });
  app = await startAppProcess({
    port: await findFreePort(),
    seedDemo: true,
    env: { MESSAGING_API_KEY: 'shutdown-key', MESSAGING_PROVIDER_URL: sim.url, SESSION_SECRET: 'shutdown-session-secret-0123456789ab' },
  });
}, 180_000);
afterAll(async () => {
  await app?.stop();
  await sim?.close();
});

it('on SIGTERM stops accepting, finishes the request in flight, closes the database and exits 0', async () => {
  const { client } = createHttpClient(app.url);
  await client.auth.signIn.mutate({ email: 'staff@demo.firm', password: 'demo-staff-pass' });
  sim.queueResponse({ hang: true }); // the send will take the full 10 s provider timeout
  const inFlight = client.chat.send.mutate({ to: '+44 7700 900123', body: 'Sent as the server stops' }).then(
    (record) => record.metadata.outcome ?? record.status,
    (e: Error) => e.message,
  );
  await new Promise((r) => setTimeout(r, 1_000));
  app.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  const refused = await fetch(`${app.url}/api/health`).then(
    () => 'answered',
    () => 'refused',
  );

  expect(await inFlight).toBe('unknown'); // answered (the provider may have it), not cut off
  expect(refused).toBe('refused');
  expect(await app.exited).toBe(0);
  expect(app.output()).not.toMatch(/unhandled|ECONNRESET|Error:/i);
}, 60_000);
