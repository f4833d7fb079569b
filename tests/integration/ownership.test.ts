import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSession, SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { readPdfText } from '../support/pdf-text';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { match } from '../support/matchers';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// Ownership (server/ownership/README.md "Ownership"): who handles a conversation, its state, internal notes and the
// notifications that tell people — through the real HTTP API and webhook, on real PostgreSQL.

let server: TTestServer;
type TClient = ReturnType<typeof createHttpClient>['client'];
let dee: TClient;
let sam: TClient;
let ann: TClient;
const ids = { dee: 0, sam: 0, ann: 0, gone: 0, client: 0, other: 0 };
let msg = 0;

async function signIn(email: string, name: string, role: 'staff' | 'director') {
  const user = await createUser({ email, name, role, password: 'owner-password-1' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email, password: 'owner-password-1' });
  return { client, id: user.id };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { message: string; data?: { code?: string } }) => ({ code: error.data?.code, message: error.message }),
  );

async function inbound(from: string, body: string, timestamp = String(Math.floor(Date.now() / 1000))) {
  const res = await postWebhook(server.url, cloudPayload({ messages: [textMessage(`wamid.own-${++msg}`, from, body, timestamp)] }));
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET: 'owner-session-secret-0123456789abcdef', MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  ({ client: dee, id: ids.dee } = await signIn('dee@own.test', 'Dee Director', 'director'));
  ({ client: sam, id: ids.sam } = await signIn('sam@own.test', 'Sam Staff', 'staff'));
  ({ client: ann, id: ids.ann } = await signIn('ann@own.test', 'Ann Other', 'staff'));
  const gone = await signIn('gone@own.test', 'Gwen Gone', 'staff');
  ids.gone = gone.id;
  await dee.users.deactivate.mutate({ userId: gone.id });
  ids.client = (await dee.clients.create.mutate({ name: 'Helena Marsh', phone: '+447700955501' })).id;
  ids.other = (await dee.clients.create.mutate({ name: 'Owen Price', phone: '+447700955502' })).id;
}, 120_000);
afterAll(() => server?.stop());

it('gives a client’s new conversation to its responsible person, who is told', async () => {
  expect(await sam.clients.setResponsible.mutate({ clientId: ids.client, userId: ids.ann })).toEqual({
    responsible: { id: ids.ann, name: 'Ann Other' },
  });
  expect((await sam.clients.get.query({ clientId: ids.client })).responsible).toEqual({ id: ids.ann, name: 'Ann Other' });
  await inbound('447700955501', 'Hello, about my lease');
  const [thread] = (await ann.inbox.threads.query({ filter: 'mine' })).threads;
  expect(thread).toMatchObject({ clientId: ids.client, assignee: { id: ids.ann }, state: 'open', overdue: false });
  expect(await ann.notifications.unreadCount.query()).toEqual({ count: 1 });
  const { items } = await ann.notifications.list.query();
  expect(items[0]).toMatchObject({ kind: 'assigned', threadRef: { clientId: ids.client }, threadName: 'Helena Marsh', actor: null });
  // A second message tells the assignee once more ('message'), and a third not again while that is unread.
  await inbound('447700955501', 'Are you there?');
  await inbound('447700955501', 'Hello?');
  expect((await ann.notifications.list.query()).items.map((n) => n.kind)).toEqual(['message', 'assigned']);
});

it('assigns, reassigns and unassigns: both people told, each change audited, the filters follow', async () => {
  await inbound('447700955502', 'New matter please');
  expect((await sam.inbox.threads.query({ filter: 'unassigned' })).threads.map((t) => t.clientId)).toContain(ids.other);
  await sam.inbox.assign.mutate({ clientId: ids.other, userId: ids.sam });
  expect((await sam.inbox.threads.query({ filter: 'mine' })).threads.map((t) => t.clientId)).toEqual([ids.other]);
  expect((await sam.inbox.threads.query({ filter: 'unassigned' })).threads.map((t) => t.clientId)).not.toContain(ids.other);
  expect(await sam.notifications.unreadCount.query()).toEqual({ count: 0 }); // nobody is told of their own act
  await ann.notifications.markRead.mutate({ all: true });
  await dee.inbox.assign.mutate({ clientId: ids.other, userId: ids.ann });
  const told = { actor: { id: ids.dee, name: 'Dee Director' }, assignee: { id: ids.ann, name: 'Ann Other' } };
  expect((await sam.notifications.list.query()).items[0]).toMatchObject({ kind: 'assigned', ...told, threadRef: { clientId: ids.other } });
  expect((await ann.notifications.list.query()).items[0]).toMatchObject({ kind: 'assigned', ...told, readAt: null });
  await ann.inbox.assign.mutate({ clientId: ids.other, userId: null });
  const trail = await sql<{ detail: { from: number | null; to: number | null } }>(
    server.databaseUrl,
    `SELECT detail FROM audit_events WHERE action = 'inbox.assign' AND subject = $1 ORDER BY id`,
    [`client:${ids.other}`],
  );
  expect(trail.map((r) => r.detail)).toEqual([
    { from: null, to: ids.sam },
    { from: ids.sam, to: ids.ann },
    { from: ids.ann, to: null },
  ]);
});

it('refuses to assign to an unknown or deactivated person, with a sentence', async () => {
  expect(await refusal(sam.inbox.assign.mutate({ clientId: ids.other, userId: ids.gone }))).toMatchObject({
    code: 'BAD_REQUEST',
    message: match.stringContaining('Gwen Gone is no longer active'),
  });
  expect(await refusal(sam.inbox.assign.mutate({ clientId: ids.other, userId: 999_999 }))).toMatchObject({
    code: 'BAD_REQUEST',
    message: match.stringContaining('does not exist'),
  });
});

it('marks done and snoozes; the client’s next message reopens; a snooze ends by itself', async () => {
  await sam.inbox.setState.mutate({ clientId: ids.other, state: 'done' });
  expect((await sam.inbox.threads.query()).threads.map((t) => t.clientId)).not.toContain(ids.other);
  expect((await sam.inbox.threads.query({ state: 'done' })).threads.map((t) => t.clientId)).toEqual([ids.other]);
  await inbound('447700955502', 'One more thing');
  expect((await sam.inbox.threadSummary.query({ clientId: ids.other }))?.state).toBe('open');

  expect(
    await refusal(sam.inbox.setState.mutate({ clientId: ids.other, state: 'snoozed', snoozeUntil: new Date(Date.now() - 1000) })),
  ).toMatchObject({
    code: 'BAD_REQUEST',
    message: match.stringContaining('in the future'),
  });
  const until = new Date(Date.now() + 1500);
  await sam.inbox.setState.mutate({ clientId: ids.other, state: 'snoozed', snoozeUntil: until });
  expect((await sam.inbox.threads.query({ state: 'snoozed' })).threads[0]).toMatchObject({
    clientId: ids.other,
    state: 'snoozed',
    snoozedUntil: until,
  });
  await expect.poll(async () => (await sam.inbox.threadSummary.query({ clientId: ids.other }))?.state, { timeout: 10_000 }).toBe('open');
  const states = await sql<{ user_id: number | null; detail: { from: string; to: string } }>(
    server.databaseUrl,
    `SELECT user_id, detail FROM audit_events WHERE action = 'inbox.state' AND subject = $1 ORDER BY id`,
    [`client:${ids.other}`],
  );
  expect(states.map((r) => [r.user_id, r.detail.from, r.detail.to])).toEqual([
    [ids.sam, 'open', 'done'],
    [ids.sam, 'open', 'snoozed'],
    [null, 'snoozed', 'open'],
  ]);
});

it('keeps internal notes in the thread, never sent, mentions told, over-long refused', async () => {
  const note = await sam.chat.addNote.mutate({ clientId: ids.client, body: 'Called her back — @Ann Other please draft the letter' });
  expect(note.mentions).toEqual([ids.ann]);
  const page = await sam.inbox.thread.query({ clientId: ids.client });
  expect(page.items.at(-1)).toMatchObject({ id: note.id, type: 'chat_note', direction: null, status: null, sentBy: { id: ids.sam } });
  expect((await ann.notifications.list.query()).items[0]).toMatchObject({
    kind: 'mention',
    communicationId: note.id,
    actor: { id: ids.sam },
  });
  // Never counted as the client writing, nor as the firm's reply: the conversation still awaits one.
  const summary = await sam.inbox.threadSummary.query({ clientId: ids.client });
  expect(summary?.last.direction).toBe('inbound');
  expect(await refusal(sam.chat.addNote.mutate({ clientId: ids.client, body: 'x'.repeat(4097) }))).toMatchObject({ code: 'BAD_REQUEST' });
});

it('exports a note marked internal, in JSON and PDF', async () => {
  const cookie = `${SESSION_COOKIE}=${(await createSession(ids.sam, 'owner-session-secret-0123456789abcdef', new Date())).token}`;
  const download = async (format: 'json' | 'pdf') => {
    const res = await fetch(`${server.url}/api/export/client/${ids.client}.${format}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  const json = JSON.parse((await download('json')).toString('utf8')) as {
    count: number;
    internalNotes: number;
    messages: { internal: boolean; body: string; direction: string | null }[];
  };
  expect(json.internalNotes).toBe(1);
  expect(json.count).toBe(json.messages.length - 1); // the messages, the note besides them
  expect(json.messages.filter((m) => m.internal)).toEqual([
    match.objectContaining({ body: match.stringContaining('please draft the letter'), direction: null }),
  ]);
  expect(json.messages.filter((m) => !m.internal).every((m) => m.direction === 'inbound')).toBe(true);
  const { text } = await readPdfText(await download('pdf'));
  expect(text.replace(/\s+/g, ' ')).toContain('Internal note by Sam Staff · not sent to the client');
});

it('gives back what a deactivated person held: their conversations to Unassigned, their clients to nobody', async () => {
  const leaving = await signIn('lee@own.test', 'Lee Leaving', 'staff');
  await sam.clients.setResponsible.mutate({ clientId: ids.other, userId: leaving.id });
  await sam.inbox.assign.mutate({ clientId: ids.other, userId: leaving.id });
  await dee.users.deactivate.mutate({ userId: leaving.id });
  expect((await sam.inbox.threadSummary.query({ clientId: ids.other }))?.assignee).toBeNull();
  expect((await sam.clients.get.query({ clientId: ids.other })).responsible).toBeNull();
  const [trail] = await sql<{ detail: Record<string, number> }>(
    server.databaseUrl,
    `SELECT detail FROM audit_events WHERE action = 'user.deactivate' AND subject = $1`,
    [`user:${leaving.id}`],
  );
  expect(trail?.detail).toMatchObject({ conversationsUnassigned: 1, clientsNoLongerResponsible: 1 });
});

it('a number linked to a client takes its conversation’s assignee, state and notifications along', async () => {
  await inbound('447700955599', 'Who is this firm?');
  await sam.inbox.assign.mutate({ phone: '+447700955599', userId: ids.ann });
  await sam.inbox.setState.mutate({ phone: '+447700955599', state: 'done' });
  const newcomer = await sam.clients.create.mutate({ name: 'Nia Newcomer', phone: '+447700955598' });
  await sam.inbox.link.mutate({ phone: '+447700955599', clientId: newcomer.id });
  expect(await sam.inbox.threadSummary.query({ clientId: newcomer.id })).toMatchObject({ assignee: { id: ids.ann }, state: 'done' });
  expect((await ann.notifications.list.query()).items[0]).toMatchObject({ kind: 'assigned', threadRef: { clientId: newcomer.id } });
});

it('pages Mine newest first, each conversation once, in the order of the whole inbox', async () => {
  const pager = await signIn('pat@own.test', 'Pat Pager', 'staff');
  const numbers = Array.from({ length: 57 }, (_, i) => `4477009661${String(i).padStart(2, '0')}`);
  const base = Math.floor(Date.now() / 1000) - 1000;
  const messages = numbers.map((from, i) => textMessage(`wamid.own-page-${i}`, from, `page ${i}`, String(base + i)));
  expect((await postWebhook(server.url, cloudPayload({ messages }))).status).toBe(200);
  for (const [i, from] of numbers.entries()) if (i % 3 !== 0) await sam.inbox.assign.mutate({ phone: `+${from}`, userId: pager.id });
  // A newer message moves one of them to the top, through the summary's trigger.
  await inbound(numbers[1]!, 'newest of all');
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await pager.client.inbox.threads.query({ filter: 'mine', limit: 10, cursor });
    seen.push(...page.threads.map((t) => t.phone!));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const all = (await pager.client.inbox.threads.query({ limit: 500 })).threads.map((t) => t.phone);
  const expected = all.filter((phone) => numbers.indexOf(phone!) % 3 !== 0 && numbers.includes(phone!));
  expect(seen).toHaveLength(38);
  expect(seen).toEqual(expected);
  expect(seen[0]).toBe(numbers[1]);
});

it('reading a conversation clears its reader’s notifications about it; an unknown number is named as the inbox names it', async () => {
  await postWebhook(
    server.url,
    cloudPayload({
      contacts: [{ profile: { name: 'Rory Unknown' }, wa_id: '447700955577' }],
      messages: [textMessage(`wamid.own-${++msg}`, '447700955577', 'Hi, is this the firm?', String(Math.floor(Date.now() / 1000)))],
    }),
  );
  await dee.inbox.assign.mutate({ phone: '+447700955577', userId: ids.ann });
  await inbound('447700955577', 'Hello again');
  const told = (await ann.notifications.list.query()).items.filter((n) => 'phone' in n.threadRef && n.threadRef.phone === '447700955577');
  expect(told.map((n) => [n.kind, n.threadName, n.readAt])).toEqual([
    ['message', '~Rory Unknown', null],
    ['assigned', '~Rory Unknown', null],
  ]);
  const before = (await ann.notifications.unreadCount.query()).count;
  await ann.inbox.markRead.mutate({ phone: '+447700955577' });
  expect((await ann.notifications.unreadCount.query()).count).toBe(before - 2);
});
