import { afterAll, beforeAll, expect, it } from 'vitest';
import { denialsSettled } from '../../server/access/record-denial';
import { createSession, SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// What the trail records of walled attempts (server/access/README.md "What the trail records"): one
// access.denied per deliberate request — a page, a conversation, a case, a file, an export — and
// none for what an open page reads again by itself once the wall is up (lists, counts, people, a
// client's cases, its timeline, its summary, marking it read, a retry of the same open).

const SESSION_SECRET = 'walls-denials-secret-0123456789abcdef';
let server: TTestServer;

async function signIn(email: string, name: string, role: 'staff' | 'director') {
  const user = await createUser({ email, name, role, password: 'denials-password-1' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email, password: 'denials-password-1' });
  const cookie = `${SESSION_COOKIE}=${(await createSession(user.id, SESSION_SECRET, new Date())).token}`;
  return { client, cookie, id: user.id };
}

/** The call's refusal code (every walled read is answered NOT_FOUND, as for a missing one). */
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => 'answered',
    (error: { data?: { code?: string } }) => error.data?.code ?? 'failed',
  );

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET, MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(() => server?.stop());

it('a person walled off mid-session: 5 deliberate opens are 5 access.denied, whatever their open page reads meanwhile', async () => {
  const dee = await signIn('dee@denials.test', 'Dee Director', 'director');
  const sam = await signIn('sam@denials.test', 'Sam Staff', 'staff');
  const client = await dee.client.clients.create.mutate({ name: 'Amelia Hart', phone: '+447700900123' });
  const kase = await dee.client.cases.create.mutate({ clientId: client.id, reference: 'HART-2026-001', title: 'Lease dispute' });
  const delivered = await postWebhook(
    server.url,
    cloudPayload({
      messages: [
        textMessage('wamid.den1', '447700900123', 'About the lease'),
        { from: '447700900123', id: 'wamid.den2', timestamp: '1763700001', type: 'image', image: { id: '77', mime_type: 'image/png' } },
      ],
    }),
  );
  expect(delivered.status).toBe(200);
  const [file] = await sql<{ id: number }>(server.databaseUrl, 'SELECT id FROM attachments');
  const thread = { clientId: client.id };

  // Sam's page is open on Amelia Hart's conversation, reading what it reads.
  const pageReads = () =>
    Promise.all([
      refusal(sam.client.inbox.threads.query({})),
      refusal(sam.client.inbox.unreadCount.query()),
      refusal(sam.client.inbox.people.query(thread)),
      refusal(sam.client.inbox.threadSummary.query(thread)),
      refusal(sam.client.cases.listForClient.query({ clientId: client.id })),
      refusal(sam.client.timeline.client.query({ clientId: client.id })),
      refusal(sam.client.timeline.documents.query({ clientId: client.id })),
      refusal(sam.client.chat.scheduled.query({ clientId: client.id })),
      refusal(sam.client.inbox.markRead.mutate(thread)),
    ]);
  await pageReads();
  expect(await refusal(sam.client.inbox.thread.query(thread))).toBe('answered');

  await dee.client.access.screen.mutate({ clientId: client.id, userId: sam.id, reason: 'Acted for the landlord' });
  // The wall change's resync: the page reads everything again, and again while Sam tries things.
  const refusedAround = await pageReads();
  expect(refusedAround).toContain('NOT_FOUND');

  const get = (path: string) => fetch(`${server.url}${path}`, { headers: { cookie: sam.cookie } }).then((r) => r.status);
  expect(await refusal(sam.client.clients.get.query({ clientId: client.id }))).toBe('NOT_FOUND'); // 1: the client's page
  await pageReads();
  expect(await refusal(sam.client.clients.get.query({ clientId: client.id }))).toBe('NOT_FOUND'); // its retry: the same attempt
  expect(await refusal(sam.client.inbox.thread.query(thread))).toBe('NOT_FOUND'); // 2: the conversation
  await pageReads();
  expect(await refusal(sam.client.cases.get.query({ caseId: kase.id }))).toBe('NOT_FOUND'); // 3: the case
  expect(await get(`/api/media/${file!.id}`)).toBe(404); // 4: a file
  await pageReads();
  expect(await get(`/api/export/client/${client.id}.json`)).toBe(404); // 5: an export
  await pageReads();

  await denialsSettled();
  const denied = await sql<{ subject: string; detail: { path: string; opened: string; wall: string } }>(
    server.databaseUrl,
    `SELECT subject, detail FROM audit_events WHERE action = 'access.denied' AND user_id = $1 ORDER BY id`,
    [sam.id],
  );
  expect(denied.map((d) => [d.subject, d.detail.opened, d.detail.wall])).toEqual(
    expect.arrayContaining([
      [`client:${client.id}`, 'client', 'screen'],
      [`client:${client.id}`, 'conversation', 'screen'],
      [`case:${kase.id}`, 'case', 'screen'],
      [expect.stringMatching(/^communication:\d+$/), 'file', 'screen'],
      [`client:${client.id}`, 'export', 'screen'],
    ]),
  );
  expect(denied).toHaveLength(5);
});

it('a restricted matter a person is no member of is recorded as the restriction that stopped them', async () => {
  const dee = await signIn('dee2@denials.test', 'Dana Director', 'director');
  const olive = await signIn('olive@denials.test', 'Olive Outsider', 'staff');
  const client = await dee.client.clients.create.mutate({ name: 'Rosalind Vale', phone: '+447700900456' });
  await dee.client.access.addMember.mutate({ clientId: client.id, userId: dee.id });
  await dee.client.access.setRestricted.mutate({ clientId: client.id, restricted: true });
  expect(await refusal(olive.client.clients.get.query({ clientId: client.id }))).toBe('NOT_FOUND');
  await denialsSettled();
  const denied = await sql<{ detail: { opened: string; wall: string } }>(
    server.databaseUrl,
    `SELECT detail FROM audit_events WHERE action = 'access.denied' AND user_id = $1`,
    [olive.id],
  );
  expect(denied.map((d) => d.detail)).toEqual([{ path: 'clients.get', opened: 'client', wall: 'restriction' }]);
});
