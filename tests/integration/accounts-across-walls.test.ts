import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { match } from '../support/matchers';
import { sql } from '../support/sql';

// Accounts cannot be used to go around a wall (server/access/README.md "Ethical walls"): a director
// screened from any matter adds, promotes, demotes and reactivates nobody — else they would make an
// account, sign in as it and read the matter they are screened from. Deactivating stays theirs.

let server: TTestServer;
type TClient = ReturnType<typeof createHttpClient>['client'];
let dee: TClient;
let ben: TClient;
const ids = { dee: 0, ben: 0, sam: 0, gone: 0, client: 0 };

const SCREENED = 'You are screened from a matter, so you cannot manage accounts: ask a director who is not screened.';

async function signIn(email: string, name: string, role: 'staff' | 'director') {
  const user = await createUser({ email, name, role, password: 'accounts-password-1' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email, password: 'accounts-password-1' });
  return { client, id: user.id };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { message: string; data?: { code?: string } }) => ({ code: error.data?.code, message: error.message }),
  );

const userRow = async (id: number) =>
  (
    await sql<{ role: string; active: boolean }>(
      server.databaseUrl,
      'SELECT role, deactivated_at IS NULL AS active FROM users WHERE id = $1',
      [id],
    )
  )[0];

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET: 'accounts-session-secret-0123456789abcdef' });
  ({ client: dee, id: ids.dee } = await signIn('dee@accounts.test', 'Dee Director', 'director'));
  ({ client: ben, id: ids.ben } = await signIn('ben@accounts.test', 'Ben Director', 'director'));
  ids.sam = (await signIn('sam@accounts.test', 'Sam Staff', 'staff')).id;
  ids.gone = (await signIn('gone@accounts.test', 'Gwen Gone', 'staff')).id;
  await ben.users.deactivate.mutate({ userId: ids.gone });
  ids.client = (await ben.clients.create.mutate({ name: 'Helena Marsh', phone: '+447700911111' })).id;
  await ben.access.screen.mutate({ clientId: ids.client, userId: ids.dee, reason: 'acted for the other side' });
}, 120_000);
afterAll(() => server?.stop());

it('a screened director cannot add an account, so cannot sign in as one and read the client they are screened from', async () => {
  for (const role of ['staff', 'director'] as const) {
    expect(
      await refusal(dee.users.add.mutate({ name: 'Molly Mole', email: `mole-${role}@accounts.test`, role, password: 'chosen-by-dee-1' })),
    ).toEqual({ code: 'FORBIDDEN', message: SCREENED });
  }
  // A password the server makes and shows once would serve as well.
  expect(await refusal(dee.users.add.mutate({ name: 'Molly Mole', email: 'mole-made@accounts.test', role: 'staff' }))).toEqual({
    code: 'FORBIDDEN',
    message: SCREENED,
  });
  expect(await sql(server.databaseUrl, "SELECT id FROM users WHERE email LIKE 'mole%'")).toEqual([]);
  const { client: mole } = createHttpClient(server.url);
  expect(await refusal(mole.auth.signIn.mutate({ email: 'mole-staff@accounts.test', password: 'chosen-by-dee-1' }))).not.toBeNull();
  expect(await refusal(mole.clients.get.query({ clientId: ids.client }))).toMatchObject({ code: 'UNAUTHORIZED' });
});

it('nor change anyone’s role, nor reactivate anyone (FORBIDDEN saying why, not NOT_FOUND), though they may deactivate someone', async () => {
  expect(await refusal(dee.users.changeRole.mutate({ userId: ids.sam, role: 'director' }))).toEqual({
    code: 'FORBIDDEN',
    message: SCREENED,
  });
  expect(await refusal(dee.users.changeRole.mutate({ userId: ids.ben, role: 'staff' }))).toEqual({ code: 'FORBIDDEN', message: SCREENED });
  expect(await refusal(dee.users.reactivate.mutate({ userId: ids.gone }))).toEqual({ code: 'FORBIDDEN', message: SCREENED });
  expect(await userRow(ids.sam)).toEqual({ role: 'staff', active: true });
  expect(await userRow(ids.ben)).toEqual({ role: 'director', active: true });
  expect(await userRow(ids.gone)).toEqual({ role: 'staff', active: false });
  const [changes] = await sql<{ n: number }>(
    server.databaseUrl,
    "SELECT count(*)::int AS n FROM audit_events WHERE user_id = $1 AND action IN ('user.add', 'user.role_change', 'user.reactivate')",
    [ids.dee],
  );
  expect(changes!.n).toBe(0);

  // Deactivating takes nobody across a wall: that stays theirs. An unscreened director manages accounts.
  const { user, generatedPassword } = await ben.users.add.mutate({ name: 'Tess Temp', email: 'tess@accounts.test', role: 'staff' });
  expect(generatedPassword).toEqual(match.any(String));
  expect(await dee.users.deactivate.mutate({ userId: user.id })).toMatchObject({ id: user.id, deactivatedAt: match.any(Date) });
  expect(await ben.users.reactivate.mutate({ userId: user.id })).toMatchObject({ id: user.id, deactivatedAt: null });
  // Once the screen is lifted, Dee manages accounts again.
  await ben.access.unscreen.mutate({ clientId: ids.client, userId: ids.dee });
  expect(await dee.users.changeRole.mutate({ userId: user.id, role: 'director' })).toMatchObject({ role: 'director' });
  await ben.access.screen.mutate({ clientId: ids.client, userId: ids.dee, reason: 'acted for the other side' });
});
