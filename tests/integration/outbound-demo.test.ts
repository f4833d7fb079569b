import { afterAll, beforeAll, expect, it } from 'vitest';
import { startProviderSimulator, type ProviderSimulator } from '../../server/provider-sim/provider-simulator';
import { createClient } from '../../server/services/clients';
import { createUser } from '../../server/services/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';

let sim: ProviderSimulator;
let server: TTestServer;
beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: 'unused', autoReceipts: false });
  server = await startTestServer({ MESSAGING_PROVIDER_URL: sim.url }); // no MESSAGING_API_KEY: demo mode
  await createUser({ email: 'dee@firm.test', name: 'Dee', role: 'director', password: 'director-password' });
});
afterAll(async () => {
  await server?.stop();
  await sim?.close();
});

it('in demo mode a send makes no request, gets a local demo- id and is sent; the check says Demo mode', async () => {
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  const amelia = await createClient({ name: 'Amelia Hart', phone: '+44 7700 900123' });
  const sent = await client.chat.send.mutate({ clientId: amelia.id, body: 'Demo hello' });
  expect(sent).toMatchObject({ status: 'sent', direction: 'outbound' });
  expect(sent.metadata.chat_msg_id).toMatch(/^demo-[0-9a-f-]{36}$/);
  expect(await client.settings.checkConnection.mutate()).toMatchObject({ status: 'Demo mode' });
  expect((await client.settings.chat.query()).mode).toBe('demo');
  expect(sim.requests).toHaveLength(0);
});
