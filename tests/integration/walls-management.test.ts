import { afterAll, beforeAll, expect, it } from 'vitest';
import { denialsSettled } from '../../server/access/record-denial';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { match } from '../support/matchers';
import { sql } from '../support/sql';

// Managing a wall (server/access/README.md "Ethical walls"): directors only, every change audited, bad input refused
// with a clear message, and two directors changing one wall at once take turns.

let server: TTestServer;
type TClient = ReturnType<typeof createHttpClient>['client'];
let dee: TClient;
let ben: TClient;
let staff: TClient;
const ids = { dee: 0, ben: 0, sam: 0, gone: 0, client: 0 };

async function signIn(email: string, name: string, role: 'staff' | 'director') {
  const user = await createUser({ email, name, role, password: 'walls-password-1' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email, password: 'walls-password-1' });
  return { client, id: user.id };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { message: string; data?: { code?: string } }) => ({ code: error.data?.code, message: error.message }),
  );

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET: 'walls-session-secret-0123456789abcdef' });
  ({ client: dee, id: ids.dee } = await signIn('dee@walls.test', 'Dee Director', 'director'));
  ({ client: ben, id: ids.ben } = await signIn('ben@walls.test', 'Ben Director', 'director'));
  ({ client: staff, id: ids.sam } = await signIn('sam@walls.test', 'Sam Staff', 'staff'));
  const gone = await signIn('gone@walls.test', 'Gwen Gone', 'staff');
  ids.gone = gone.id;
  await dee.users.deactivate.mutate({ userId: gone.id });
  ids.client = (await dee.clients.create.mutate({ name: 'Helena Marsh', phone: '+447700966666' })).id;
}, 120_000);
afterAll(() => server?.stop());

it('only directors manage walls', async () => {
  expect(await refusal(staff.access.get.query({ clientId: ids.client }))).toMatchObject({ code: 'FORBIDDEN' });
  expect(await refusal(staff.access.setRestricted.mutate({ clientId: ids.client, restricted: true }))).toMatchObject({
    code: 'FORBIDDEN',
  });
});

it('refuses to restrict a client with no member who could see it, and to remove its last one', async () => {
  expect(await refusal(dee.access.setRestricted.mutate({ clientId: ids.client, restricted: true }))).toMatchObject({
    code: 'CONFLICT',
    message: match.stringContaining('at least one member'),
  });
  await dee.access.addMember.mutate({ clientId: ids.client, userId: ids.sam });
  const restricted = await dee.access.setRestricted.mutate({ clientId: ids.client, restricted: true });
  expect(restricted).toMatchObject({ restricted: true, members: [{ id: ids.sam, name: 'Sam Staff', screened: false }] });
  // Dee restricted it without being a member: now she cannot see it, so cannot change it either.
  expect(await refusal(dee.access.removeMember.mutate({ clientId: ids.client, userId: ids.sam }))).toMatchObject({
    code: 'NOT_FOUND',
  });
  const own = (await dee.clients.create.mutate({ name: 'Lena Moor', phone: '+447700944444' })).id;
  await dee.access.addMember.mutate({ clientId: own, userId: ids.dee });
  await dee.access.setRestricted.mutate({ clientId: own, restricted: true });
  expect(await refusal(dee.access.removeMember.mutate({ clientId: own, userId: ids.dee }))).toMatchObject({
    code: 'CONFLICT',
    message: match.stringContaining('Dee Director is the last member'),
  });
  expect(await refusal(dee.clients.get.query({ clientId: ids.client }))).toMatchObject({ code: 'NOT_FOUND' });
  expect(await staff.clients.get.query({ clientId: ids.client })).toMatchObject({ name: 'Helena Marsh', restricted: true });
});

it('refuses a deactivated person as a member and an unknown person anywhere, by name', async () => {
  const helena = await refusal(ben.access.addMember.mutate({ clientId: ids.client, userId: ids.gone }));
  // Ben is not a member either: the restricted client is NOT_FOUND to him.
  expect(helena).toMatchObject({ code: 'NOT_FOUND', message: 'Client not found.' });
  const other = (await dee.clients.create.mutate({ name: 'Ivo Quill', phone: '+447700977777' })).id;
  expect(await refusal(dee.access.addMember.mutate({ clientId: other, userId: ids.gone }))).toMatchObject({
    code: 'CONFLICT',
    message: match.stringContaining('Gwen Gone is deactivated'),
  });
  expect(await refusal(dee.access.screen.mutate({ clientId: other, userId: 999_999, reason: 'conflict' }))).toMatchObject({
    code: 'NOT_FOUND',
  });
  expect(await refusal(dee.access.screen.mutate({ clientId: other, userId: ids.sam, reason: '   ' }))).toMatchObject({
    code: 'BAD_REQUEST',
    message: match.stringContaining('Say why'),
  });
});

it('a director may screen themself (audited as such), and a screened member is marked: the screen wins', async () => {
  const other = (await dee.clients.create.mutate({ name: 'Jonas Reed', phone: '+447700988888' })).id;
  await dee.access.addMember.mutate({ clientId: other, userId: ids.sam });
  const both = await dee.access.screen.mutate({ clientId: other, userId: ids.sam, reason: 'acted for his employer' });
  expect(both.members).toEqual([match.objectContaining({ id: ids.sam, screened: true })]);
  expect(await refusal(staff.clients.get.query({ clientId: other }))).toMatchObject({ code: 'NOT_FOUND' });
  // Restricting needs a member who can see it: Sam is screened, so he does not count.
  expect(await refusal(dee.access.setRestricted.mutate({ clientId: other, restricted: true }))).toMatchObject({ code: 'CONFLICT' });

  const self = await dee.access.screen.mutate({ clientId: other, userId: ids.dee, reason: 'my brother-in-law' });
  expect(self.screens.map((s) => [s.name, s.reason])).toEqual([
    ['Dee Director', 'my brother-in-law'],
    ['Sam Staff', 'acted for his employer'],
  ]);
  expect(await refusal(dee.clients.get.query({ clientId: other }))).toMatchObject({ code: 'NOT_FOUND' });
  // Stepping aside is one way: Dee cannot lift her own screen, another director can.
  expect(await refusal(dee.access.unscreen.mutate({ clientId: other, userId: ids.dee }))).toMatchObject({ code: 'NOT_FOUND' });
  await ben.access.unscreen.mutate({ clientId: other, userId: ids.dee });
  expect(await dee.clients.get.query({ clientId: other })).toMatchObject({ name: 'Jonas Reed' });

  const trail = await sql<{ action: string; user_id: number; detail: { userId: number; self?: boolean } }>(
    server.databaseUrl,
    `SELECT action, user_id, detail FROM audit_events WHERE subject = $1 AND action LIKE 'access.%' AND action <> 'access.denied' ORDER BY id`,
    [`client:${other}`],
  );
  expect(trail.map((e) => [e.action, e.user_id, e.detail.userId, e.detail.self ?? null])).toEqual([
    ['access.member_add', ids.dee, ids.sam, null],
    ['access.screen', ids.dee, ids.sam, false],
    ['access.screen', ids.dee, ids.dee, true],
    ['access.unscreen', ids.ben, ids.dee, null],
  ]);
  await denialsSettled(); // written off the request's path (server/access/README.md "What the trail records")
  const denied = await sql<{ user_id: number; path: string }>(
    server.databaseUrl,
    `SELECT user_id, detail->>'path' AS path FROM audit_events WHERE subject = $1 AND action = 'access.denied' ORDER BY id`,
    [`client:${other}`],
  );
  expect(denied).toEqual([
    { user_id: ids.sam, path: 'clients.get' },
    { user_id: ids.dee, path: 'clients.get' },
    { user_id: ids.dee, path: 'access.unscreen' },
  ]);
});

it('two directors changing one wall at once take turns: one wins, the other is refused by the rule it met', async () => {
  const client = (await dee.clients.create.mutate({ name: 'Kora Lind', phone: '+447700999999' })).id;
  await dee.access.addMember.mutate({ clientId: client, userId: ids.dee });
  await dee.access.addMember.mutate({ clientId: client, userId: ids.ben });
  await dee.access.setRestricted.mutate({ clientId: client, restricted: true });
  // Each removes the other: whichever goes second would leave nobody who can see it.
  const outcomes = await Promise.all([
    refusal(dee.access.removeMember.mutate({ clientId: client, userId: ids.ben })),
    refusal(ben.access.removeMember.mutate({ clientId: client, userId: ids.dee })),
  ]);
  const refused = outcomes.filter((o) => o !== null);
  expect(refused).toHaveLength(1);
  expect(refused[0]!.code).toMatch(/CONFLICT|NOT_FOUND/);
  const [row] = await sql<{ n: number }>(
    server.databaseUrl,
    `SELECT count(*)::int AS n FROM access_members WHERE subject_type = 'client' AND subject_id = $1`,
    [client],
  );
  expect(row!.n).toBe(1);
});
