import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { match } from '../support/matchers';
import { sql } from '../support/sql';

// Nobody locks the firm out (server/access/README.md "Ethical walls"): no change leaves the firm without
// an active director screened from nothing, nor a restricted client or case without an active member
// who may see it; and what a director is told never counts what they are walled from.

let server: TTestServer;
type TClient = ReturnType<typeof createHttpClient>['client'];
let dee: TClient;
let ben: TClient;
const ids = { dee: 0, ben: 0, sam: 0, ann: 0 };

async function signIn(email: string, name: string, role: 'staff' | 'director') {
  const user = await createUser({ email, name, role, password: 'lockout-password-1' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email, password: 'lockout-password-1' });
  return { client, id: user.id };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { message: string; data?: { code?: string } }) => ({ code: error.data?.code, message: error.message }),
  );

const newClient = async (name: string, phone: string) => (await ben.clients.create.mutate({ name, phone })).id;
const screensOf = async (userId: number) =>
  sql<{ subject_type: string; subject_id: number }>(
    server.databaseUrl,
    'SELECT subject_type, subject_id FROM access_screens WHERE user_id = $1 ORDER BY subject_type, subject_id',
    [userId],
  );
const NO_DIRECTOR = 'would leave the firm with no active director who is not screened';

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET: 'lockout-session-secret-0123456789abcdef' });
  ({ client: dee, id: ids.dee } = await signIn('dee@lockout.test', 'Dee Director', 'director'));
  ({ client: ben, id: ids.ben } = await signIn('ben@lockout.test', 'Ben Director', 'director'));
  ids.sam = (await signIn('sam@lockout.test', 'Sam Staff', 'staff')).id;
  ids.ann = (await signIn('ann@lockout.test', 'Ann Staff', 'staff')).id;
}, 120_000);
afterAll(() => server?.stop());

it('the last active director screened from nothing cannot be deactivated, demoted or screened', async () => {
  const conflicted = await newClient('Ula Ring', '+447700922201');
  await ben.access.screen.mutate({ clientId: conflicted, userId: ids.dee, reason: 'acted for her landlord' });
  // Dee is screened: were Ben gone, nobody could lift her screen or appoint a director.
  expect(await refusal(dee.users.deactivate.mutate({ userId: ids.ben }))).toEqual({
    code: 'PRECONDITION_FAILED',
    message: match.stringContaining(`Deactivating Ben Director ${NO_DIRECTOR} (Ben Director is the last one)`),
  });
  expect(await refusal(ben.users.changeRole.mutate({ userId: ids.ben, role: 'staff' }))).toEqual({
    code: 'PRECONDITION_FAILED',
    message: match.stringContaining(`Making Ben Director staff ${NO_DIRECTOR}`),
  });
  const other = await newClient('Vic Stone', '+447700922202');
  expect(await refusal(ben.access.screen.mutate({ clientId: other, userId: ids.ben, reason: 'my cousin' }))).toEqual({
    code: 'PRECONDITION_FAILED',
    message: match.stringContaining(`Screening Ben Director ${NO_DIRECTOR}`),
  });
  expect(await sql(server.databaseUrl, 'SELECT role, deactivated_at FROM users WHERE id = $1', [ids.ben])).toEqual([
    { role: 'director', deactivated_at: null },
  ]);
  expect(await screensOf(ids.ben)).toEqual([]);
  await ben.access.unscreen.mutate({ clientId: conflicted, userId: ids.dee });
});

it('two directors screening each other at once take turns: one of them is refused', async () => {
  const [p, q] = [await newClient('Pia Lund', '+447700922203'), await newClient('Quin Tate', '+447700922204')];
  const outcomes = await Promise.all([
    refusal(dee.access.screen.mutate({ clientId: p, userId: ids.ben, reason: 'conflict' })),
    refusal(ben.access.screen.mutate({ clientId: q, userId: ids.dee, reason: 'conflict' })),
  ]);
  expect(outcomes.filter((o) => o !== null)).toEqual([{ code: 'PRECONDITION_FAILED', message: match.stringContaining(NO_DIRECTOR) }]);
  if (outcomes[0] === null) await dee.access.unscreen.mutate({ clientId: p, userId: ids.ben });
  else await ben.access.unscreen.mutate({ clientId: q, userId: ids.dee });
  expect([...(await screensOf(ids.dee)), ...(await screensOf(ids.ben))]).toEqual([]);
});

it('the last member who may see a restricted case cannot be screened from it, nor from its client', async () => {
  const vera = await newClient('Vera Holt', '+447700922205');
  const holt = (await ben.cases.create.mutate({ clientId: vera, reference: 'HOLT-1', title: 'Holt v Crane' })).id;
  await ben.access.addMember.mutate({ caseId: holt, userId: ids.sam });
  await ben.access.addMember.mutate({ caseId: holt, userId: ids.ben });
  await ben.access.setRestricted.mutate({ caseId: holt, restricted: true });
  await ben.access.screen.mutate({ caseId: holt, userId: ids.sam, reason: 'his sister is the other side' });
  const left = 'would leave the restricted case “HOLT-1 — Holt v Crane” with no active member who may see it';
  for (const subject of [{ caseId: holt }, { clientId: vera }])
    expect(await refusal(ben.access.screen.mutate({ ...subject, userId: ids.ben, reason: 'stepping aside' }))).toEqual({
      code: 'PRECONDITION_FAILED',
      message: match.stringContaining(`Screening Ben Director ${left}`),
    });

  // A case only Sam may see, which Ben (no member) cannot: the refusal does not name it to him.
  const crane = (await ben.cases.create.mutate({ clientId: vera, reference: 'HOLT-2', title: 'Holt v Crane (costs)' })).id;
  await ben.access.addMember.mutate({ caseId: crane, userId: ids.sam });
  await ben.access.setRestricted.mutate({ caseId: crane, restricted: true });
  const refused = await refusal(ben.access.screen.mutate({ clientId: vera, userId: ids.sam, reason: 'conflict' }));
  expect(refused).toEqual({
    code: 'PRECONDITION_FAILED',
    message: match.stringContaining('Screening Sam Staff would leave a restricted matter you may not see'),
  });
  expect(refused!.message).not.toContain('HOLT-2');
  expect(await screensOf(ids.sam)).toEqual([{ subject_type: 'case', subject_id: holt }]);
});

it('restricting a client may not hide its restricted case from the case’s only member', async () => {
  const dora = await newClient('Dora Finch', '+447700922206');
  const finch = (await ben.cases.create.mutate({ clientId: dora, reference: 'FINCH-1', title: 'Finch probate' })).id;
  await ben.access.addMember.mutate({ caseId: finch, userId: ids.ann });
  await ben.access.setRestricted.mutate({ caseId: finch, restricted: true });
  await ben.access.addMember.mutate({ clientId: dora, userId: ids.ben });
  expect(await refusal(ben.access.setRestricted.mutate({ clientId: dora, restricted: true }))).toEqual({
    code: 'PRECONDITION_FAILED',
    message: match.stringContaining('Restricting this client would leave a restricted matter you may not see'),
  });
  expect(await ben.access.get.query({ clientId: dora })).toMatchObject({ restricted: false });
});

it('the last member who may see a restricted client cannot be deactivated, even by a director who cannot see it', async () => {
  const rhea = await newClient('Rhea Vance', '+447700922207');
  await ben.access.addMember.mutate({ clientId: rhea, userId: ids.ann });
  await ben.access.setRestricted.mutate({ clientId: rhea, restricted: true });
  expect(await refusal(dee.users.deactivate.mutate({ userId: ids.ann }))).toEqual({
    code: 'PRECONDITION_FAILED',
    message:
      'Deactivating Ann Staff would leave a restricted matter you may not see with no active member who may see it: add another member first, or lift the restriction.',
  });
  expect(await sql(server.databaseUrl, 'SELECT deactivated_at FROM users WHERE id = $1', [ids.ann])).toEqual([{ deactivated_at: null }]);
});

it('a deactivation’s trail entry counts only the conversations and clients the acting director may see', async () => {
  const lee = await signIn('lee@lockout.test', 'Lee Leaving', 'staff');
  const open = await newClient('Olga Open', '+447700922208');
  const walled = await newClient('Wanda Wall', '+447700922209');
  for (const clientId of [open, walled]) {
    await ben.clients.setResponsible.mutate({ clientId, userId: lee.id });
    await ben.inbox.assign.mutate({ clientId, userId: lee.id });
  }
  await ben.access.screen.mutate({ clientId: walled, userId: ids.dee, reason: 'acted for her employer' });
  await dee.users.deactivate.mutate({ userId: lee.id });
  const [trail] = await sql<{ detail: Record<string, unknown> }>(
    server.databaseUrl,
    `SELECT detail FROM audit_events WHERE action = 'user.deactivate' AND subject = $1`,
    [`user:${lee.id}`],
  );
  expect(trail?.detail).toMatchObject({ conversationsUnassigned: 1, clientsNoLongerResponsible: 1 });
  // Both were let go all the same.
  expect(
    await sql(server.databaseUrl, 'SELECT count(*)::int AS n FROM clients WHERE id = ANY($1) AND responsible_user_id IS NOT NULL', [
      [open, walled],
    ]),
  ).toEqual([{ n: 0 }]);
  expect(await sql(server.databaseUrl, 'SELECT count(*)::int AS n FROM conversation_states WHERE assignee_id = $1', [lee.id])).toEqual([
    { n: 0 },
  ]);
  await ben.access.unscreen.mutate({ clientId: walled, userId: ids.dee });
});

it('retention.batches lists no erasure batch of a client walled from the reader, as retention.batch shows none', async () => {
  const esme = await newClient('Esme Wald', '+447700922210');
  await ben.access.screen.mutate({ clientId: esme, userId: ids.dee, reason: 'her former client' });
  const { id } = await ben.erasure.request.mutate({ clientId: esme, receivedAt: new Date(), note: '' });
  const { batchId } = await ben.erasure.decide.mutate({ requestId: id, decision: 'erase' });
  expect(batchId).toEqual(match.any(String));
  expect(await refusal(dee.retention.batch.query({ batchId: batchId! }))).toMatchObject({ code: 'NOT_FOUND' });
  expect((await dee.retention.batches.query()).map((b) => b.id)).not.toContain(batchId);
  expect((await ben.retention.batches.query()).map((b) => b.id)).toContain(batchId);
});
