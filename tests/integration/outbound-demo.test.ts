import { afterAll, beforeAll, expect, it } from 'vitest';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { createClient } from '../../server/crm/clients';
import { createUser } from '../../server/auth/users';
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

it('in demo mode a file is stored and sent locally: nothing leaves, the thread shows it and it downloads', async () => {
  const { client, jar } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  const amelia = (await client.clients.list.query({ search: 'Amelia' }))[0]!;
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(Buffer.from('%PDF-1.4 demo letter'))], { type: 'application/pdf' }), 'Demo letter.pdf');
  const uploaded = (await (await fetch(`${server.url}/api/media`, { method: 'POST', body: form, headers: { cookie } })).json()) as {
    attachmentId: number;
  };
  const sent = await client.chat.send.mutate({ clientId: amelia.id, attachmentId: uploaded.attachmentId, body: 'Here it is' });
  expect(sent).toMatchObject({
    status: 'sent',
    body: 'Here it is',
    attachments: [{ id: uploaded.attachmentId, fileName: 'Demo letter.pdf', state: 'stored' }],
  });
  expect(sent.metadata.chat_msg_id).toMatch(/^demo-/);
  expect(sim.requests).toHaveLength(0);
  const file = await fetch(`${server.url}/api/media/${uploaded.attachmentId}`, { headers: { cookie } });
  expect(await file.text()).toBe('%PDF-1.4 demo letter');
});
