import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSession, SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// The side paths into a walled matter (server/access/README.md "Ethical walls"): not asking for it by its id, but
// sharing its number, unlinking its records, fetching an upload, appointing a director to lift a
// screen, or reading what a conversation's summary or the audit trail says about it.

const SESSION_SECRET = 'walls-side-secret-0123456789abcdef';
type TClient = ReturnType<typeof createHttpClient>['client'];
let server: TTestServer;
const people = {} as Record<'dee' | 'sam' | 'dana', { client: TClient; cookie: string; id: number }>;
let walled = 0; // Sam and Dana are screened from it
let open = 0; // visible to all; its case `hush` is restricted to Dee
let hush = 0;

async function signIn(email: string, name: string, role: 'staff' | 'director') {
  const user = await createUser({ email, name, role, password: 'walls-password-1' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email, password: 'walls-password-1' });
  return { client, id: user.id, cookie: `${SESSION_COOKIE}=${(await createSession(user.id, SESSION_SECRET, new Date())).token}` };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { message: string; data?: { code?: string } }) => ({ code: error.data?.code, message: error.message }),
  );

async function deliver(from: string, id: string, body: string, profile?: string) {
  const contacts = profile ? { contacts: [{ profile: { name: profile }, wa_id: from }] } : {};
  expect((await postWebhook(server.url, cloudPayload({ ...contacts, messages: [textMessage(id, from, body)] }))).status).toBe(200);
}
const recordId = async (msgId: string) =>
  (await sql<{ id: number }>(server.databaseUrl, `SELECT id FROM communications WHERE metadata->>'chat_msg_id' = $1`, [msgId]))[0]!.id;

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET, MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  people.dee = await signIn('dee@side.test', 'Dee Director', 'director');
  people.sam = await signIn('sam@side.test', 'Sam Staff', 'staff');
  people.dana = await signIn('dana@side.test', 'Dana Director', 'director');
  const dee = people.dee.client;
  walled = (await dee.clients.create.mutate({ name: 'Quincy Quokka', phone: '+447700900321' })).id;
  open = (await dee.clients.create.mutate({ name: 'Amelia Open', phone: '+447700900123' })).id;
  hush = (await dee.cases.create.mutate({ clientId: open, reference: 'HUSH-1', title: 'A private matter' })).id;
  for (const person of [people.sam, people.dana])
    await dee.access.screen.mutate({ clientId: walled, userId: person.id, reason: 'acted for the other side' });
  await dee.access.addMember.mutate({ caseId: hush, userId: people.dee.id });
  await dee.access.setRestricted.mutate({ caseId: hush, restricted: true });
}, 120_000);
afterAll(() => server?.stop());

it("a walled client's number cannot be shared by someone walled from it, confirmed or not", async () => {
  const sam = people.sam.client;
  const mine = (await sam.clients.create.mutate({ name: 'Sam’s Client', phone: '+447700900999' })).id;
  for (const attempt of [
    () => sam.clients.addNumber.mutate({ clientId: mine, phone: '+447700900321', confirm: true }),
    () => sam.clients.create.mutate({ name: 'Another', phone: '+447700900321', confirm: true }),
  ])
    expect(await refusal(attempt())).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('one you cannot see') as unknown });
  expect(await sql(server.databaseUrl, `SELECT client_id FROM client_numbers WHERE digits = '447700900321'`)).toEqual([
    { client_id: walled },
  ]);
  // Its new messages still file on it, where Sam cannot read them.
  await deliver('447700900321', 'wamid.q1', 'the confidential offer');
  expect((await sam.inbox.search.query({ q: 'confidential' })).items).toEqual([]);
  expect((await people.dee.client.inbox.search.query({ q: 'confidential' })).items).toHaveLength(1);
});

it('unlinking a number whose messages are on a walled case is refused, and linking back never files into one', async () => {
  const dee = people.dee.client;
  // A number linked to the open client from the inbox, one of its messages then filed on the walled case.
  await deliver('447700900777', 'wamid.e1', 'echidna first');
  await dee.inbox.link.mutate({ phone: '+447700900777', clientId: open });
  await deliver('447700900777', 'wamid.e2', 'echidna privileged will instructions');
  await dee.timeline.refile.mutate({ clientId: open, ids: [await recordId('wamid.e2')], caseId: hush });

  const sam = people.sam.client;
  expect(await refusal(sam.inbox.unlink.mutate({ phone: '+447700900777', clientId: open }))).toMatchObject({
    code: 'CONFLICT',
    message: expect.stringContaining('filed where you cannot see them') as unknown,
  });
  expect((await sam.inbox.search.query({ q: 'echidna' })).items.map((i) => i.body)).toEqual(['echidna first']);

  // Dee (a member) unlinks it; Sam links it back: the record does not return to the case he is walled from.
  await dee.inbox.unlink.mutate({ phone: '+447700900777', clientId: open });
  await sam.inbox.link.mutate({ phone: '+447700900777', clientId: open });
  expect(await sql(server.databaseUrl, `SELECT case_id FROM communications WHERE metadata->>'chat_msg_id' = 'wamid.e2'`)).toEqual([
    { case_id: null },
  ]);
});

it("an upload not sent yet is its uploader's alone", async () => {
  const form = new FormData();
  form.append(
    'file',
    new Blob([new Uint8Array(Buffer.from('%PDF-1.4\nrhino merger terms\n%%EOF\n'))], { type: 'application/pdf' }),
    'terms.pdf',
  );
  const res = await fetch(`${server.url}/api/media`, { method: 'POST', body: form, headers: { cookie: people.dee.cookie } });
  expect(res.status).toBe(200);
  const { attachmentId } = (await res.json()) as { attachmentId: number };
  const get = async (cookie: string, id = attachmentId) => {
    const answer = await fetch(`${server.url}/api/media/${id}`, { headers: { cookie } });
    return { status: answer.status, body: await answer.text() };
  };
  expect((await get(people.dee.cookie)).status).toBe(200);
  expect(await get(people.sam.cookie)).toEqual(await get(people.sam.cookie, 999_999));
});

it('a screened director may not make a director, who could lift the screen', async () => {
  const dana = people.dana.client;
  const appoint = await refusal(
    dana.users.add.mutate({ name: 'Pat Puppet', email: 'puppet@side.test', role: 'director', password: 'puppet-password-1' }),
  );
  expect(appoint).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('screened from a matter') as unknown });
  expect(await refusal(dana.users.changeRole.mutate({ userId: people.sam.id, role: 'director' }))).toMatchObject({ code: 'FORBIDDEN' });
  // Nor staff: she could sign in as them (tests/integration/accounts-across-walls.test.ts). Directors on no screen, as before.
  expect(
    await refusal(dana.users.add.mutate({ name: 'Sue Staff', email: 'sue@side.test', role: 'staff', password: 'sue-password-12' })),
  ).toMatchObject({ code: 'FORBIDDEN' });
  const deeAdds = await people.dee.client.users.add.mutate({
    name: 'Ned Director',
    email: 'ned@side.test',
    role: 'director',
    password: 'ned-password-12',
  });
  await people.dee.client.users.deactivate.mutate({ userId: deeAdds.user.id });
  expect(await refusal(dana.users.reactivate.mutate({ userId: deeAdds.user.id }))).toMatchObject({ code: 'FORBIDDEN' });
});

it("a conversation's summary is read from what the reader may see: its last message, last inbound time and profile name", async () => {
  await deliver('447700900123', 'wamid.a1', 'amelia hello', 'Amelia');
  await deliver('447700900123', 'wamid.a2', 'amelia secret', 'Amelia Hushed');
  await people.dee.client.timeline.refile.mutate({ clientId: open, ids: [await recordId('wamid.a2')], caseId: hush });
  const seen = (await people.sam.client.inbox.threadSummary.query({ clientId: open }))!;
  const [visible] = await sql<{ at: Date }>(
    server.databaseUrl,
    `SELECT max(coalesce(provider_timestamp, created_at)) AS at FROM communications
     WHERE client_id = $1 AND direction = 'inbound' AND (case_id IS NULL OR case_id <> $2)`,
    [open, hush],
  );
  expect(seen).toMatchObject({ contactName: 'Amelia', lastInboundAt: visible!.at, last: { body: 'amelia hello' } });
  expect(JSON.stringify(seen)).not.toContain('Hushed');
  expect((await people.dee.client.inbox.threadSummary.query({ clientId: open }))!).toMatchObject({ contactName: 'Amelia Hushed' });
});

it('the audit trail does not show a screened director a refile onto a case they are walled from', async () => {
  const trail = await people.dana.client.audit.list.query({ action: 'communication.refile' });
  expect(trail.items.filter((e) => (e.detail as { caseId?: number }).caseId === hush)).toEqual([]);
  const full = await people.dee.client.audit.list.query({ action: 'communication.refile' });
  expect(full.items.filter((e) => (e.detail as { caseId?: number }).caseId === hush).length).toBeGreaterThan(0);
});
