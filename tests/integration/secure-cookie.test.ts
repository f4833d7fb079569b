import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({ NEXT_PUBLIC_SITE_URL: 'https://chat.firm.example' });
  await createUser({ email: 'sam@firm.test', name: 'Sam', role: 'staff', password: 'staff-password' });
});
afterAll(() => server?.stop());

it('when the site URL is https, the session cookie is Secure', async () => {
  const { client, lastSetCookies } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  expect(lastSetCookies.find((c) => c.startsWith('firm_chat_session='))).toMatch(/;\s*Secure/i);
});
