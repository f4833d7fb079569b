import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSession, SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { isConnected, openLiveStream } from '../support/live-stream';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// Unread is per person (server/inbox/README.md "Unread"): each person's read mark, their badge, filter,
// rows and items; opening clears their notifications and tells their own pages only — through the
// real HTTP API, webhook and live stream, on real PostgreSQL.

const SESSION_SECRET = 'unread-session-secret-0123456789abcdef';
type TClient = ReturnType<typeof createHttpClient>['client'];
type TPerson = { client: TClient; cookie: string; id: number };
let server: TTestServer;
let dee: TPerson; // director
let ann: TPerson;
let bob: TPerson;
let msg = 0;

async function signIn(email: string, name: string, role: 'staff' | 'director'): Promise<TPerson> {
  const user = await createUser({ email, name, role, password: 'unread-password-1' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email, password: 'unread-password-1' });
  const cookie = `${SESSION_COOKIE}=${(await createSession(user.id, SESSION_SECRET, new Date())).token}`;
  return { client, cookie, id: user.id };
}

async function deliver(from: string, body: string): Promise<number> {
  const id = `wamid.unread-${++msg}`;
  const answer = await postWebhook(
    server.url,
    cloudPayload({ messages: [textMessage(id, from, body, String(Math.floor(Date.now() / 1000)))] }),
  );
  expect(answer.status).toBe(200);
  return (await sql<{ id: number }>(server.databaseUrl, `SELECT id FROM communications WHERE metadata->>'chat_msg_id' = $1`, [id]))[0]!.id;
}

/** The person's unread in one client's conversation: the badge's share, the unread filter, the row and the summary. */
async function unreadOf(person: TPerson, clientId: number) {
  const listed = (await person.client.inbox.threads.query({ filter: 'unread' })).threads.find((t) => t.clientId === clientId);
  const row = (await person.client.inbox.threads.query()).threads.find((t) => t.clientId === clientId);
  const summary = await person.client.inbox.threadSummary.query({ clientId });
  return { listed: listed?.unread ?? 0, row: row?.unread, summary: summary?.unread };
}

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET, MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  dee = await signIn('dee@unread.test', 'Dee Director', 'director');
  ann = await signIn('ann@unread.test', 'Ann Earner', 'staff');
  bob = await signIn('bob@unread.test', 'Bob Earner', 'staff');
});

afterAll(async () => {
  await server?.close();
});

it('one person opening a conversation leaves everyone else’s unread as it was', async () => {
  const client = await dee.client.clients.create.mutate({ name: 'Carla Two', phone: '+447700966001' });
  await deliver('447700966001', 'first');
  await deliver('447700966001', 'second');
  const bobBefore = await bob.client.inbox.unreadCount.query();
  expect(await unreadOf(bob, client.id)).toEqual({ listed: 2, row: 2, summary: 2 });
  expect(await unreadOf(ann, client.id)).toEqual({ listed: 2, row: 2, summary: 2 });

  expect(await ann.client.inbox.markRead.mutate({ clientId: client.id })).toEqual({ updated: 2 });
  expect(await unreadOf(ann, client.id)).toEqual({ listed: 0, row: 0, summary: 0 });
  expect(await bob.client.inbox.unreadCount.query()).toEqual(bobBefore);
  expect(await unreadOf(bob, client.id)).toEqual({ listed: 2, row: 2, summary: 2 });
  // The items' readAt is the reader's own.
  const readAt = async (person: TPerson) =>
    (await person.client.inbox.thread.query({ clientId: client.id })).items.map((i) => i.readAt !== null);
  expect(await readAt(ann)).toEqual([true, true]);
  expect(await readAt(bob)).toEqual([false, false]);

  // Bob's own opening counts what was unread for him; a new message is unread for both.
  expect(await bob.client.inbox.markRead.mutate({ clientId: client.id })).toEqual({ updated: 2 });
  expect((await bob.client.inbox.unreadCount.query()).messages).toBe(bobBefore.messages - 2);
  await deliver('447700966001', 'third');
  expect(await unreadOf(ann, client.id)).toEqual({ listed: 1, row: 1, summary: 1 });
  expect(await unreadOf(bob, client.id)).toEqual({ listed: 1, row: 1, summary: 1 });
  expect(await readAt(ann)).toEqual([true, true, false]);
});

it('a person never counts records on a case walled from them, before or after opening', async () => {
  const client = await dee.client.clients.create.mutate({ name: 'Walter Wall', phone: '+447700966002' });
  const hidden = await dee.client.cases.create.mutate({ clientId: client.id, reference: 'WALL-1', title: 'Walled matter' });
  await dee.client.access.screen.mutate({ caseId: hidden.id, userId: ann.id, reason: 'acted for the other side' });
  const walled = await deliver('447700966002', 'walled one');
  await dee.client.timeline.refile.mutate({ clientId: client.id, ids: [walled], caseId: hidden.id });
  await deliver('447700966002', 'open one');
  expect(await unreadOf(ann, client.id)).toEqual({ listed: 1, row: 1, summary: 1 });
  expect(await unreadOf(dee, client.id)).toEqual({ listed: 2, row: 2, summary: 2 });

  expect(await ann.client.inbox.markRead.mutate({ clientId: client.id })).toEqual({ updated: 1 });
  expect(await unreadOf(ann, client.id)).toEqual({ listed: 0, row: 0, summary: 0 });
  // A message filed on the walled case after her opening: it leaves her count as it was.
  const later = await deliver('447700966002', 'walled later');
  await dee.client.timeline.refile.mutate({ clientId: client.id, ids: [later], caseId: hidden.id });
  const before = await ann.client.inbox.unreadCount.query();
  expect(await unreadOf(ann, client.id)).toEqual({ listed: 0, row: 0, summary: 0 });
  await deliver('447700966002', 'open later');
  expect(await unreadOf(ann, client.id)).toEqual({ listed: 1, row: 1, summary: 1 });
  expect(await ann.client.inbox.unreadCount.query()).toEqual({ conversations: before.conversations + 1, messages: before.messages + 1 });
  expect(await unreadOf(dee, client.id)).toEqual({ listed: 4, row: 4, summary: 4 });
});

it('opening clears the opener’s notifications about it, even when another person had read it first', async () => {
  const client = await dee.client.clients.create.mutate({ name: 'Nora Notified', phone: '+447700966003' });
  await deliver('447700966003', 'hello');
  await bob.client.inbox.markRead.mutate({ clientId: client.id });
  await dee.client.inbox.assign.mutate({ clientId: client.id, userId: ann.id });
  const about = async () =>
    (await ann.client.notifications.list.query()).items.filter((n) => 'clientId' in n.threadRef && n.threadRef.clientId === client.id);
  expect((await about()).map((n) => [n.kind, n.readAt])).toEqual([['assigned', null]]);
  expect(await ann.client.inbox.markRead.mutate({ clientId: client.id })).toEqual({ updated: 1 });
  expect((await about()).map((n) => [n.kind, n.readAt !== null])).toEqual([['assigned', true]]);
  // Opening again with nothing unread still clears what came since.
  await dee.client.inbox.assign.mutate({ clientId: client.id, userId: null });
  await dee.client.inbox.assign.mutate({ clientId: client.id, userId: ann.id });
  expect((await about()).some((n) => n.readAt === null)).toBe(true);
  expect(await ann.client.inbox.markRead.mutate({ clientId: client.id })).toEqual({ updated: 0 });
  expect((await about()).every((n) => n.readAt !== null)).toBe(true);
});

it('an opening is told live to the opener’s own streams, never to another person’s', async () => {
  const client = await dee.client.clients.create.mutate({ name: 'Lena Live', phone: '+447700966004' });
  await deliver('447700966004', 'live hello');
  const annTab = await openLiveStream(server.url, ann.cookie);
  const bobTab = await openLiveStream(server.url, bob.cookie);
  try {
    await annTab.waitFor(isConnected);
    await bobTab.waitFor(isConnected);
    const fromAnn = annTab.frames.length;
    const fromBob = bobTab.frames.length;
    expect(await ann.client.inbox.markRead.mutate({ clientId: client.id })).toEqual({ updated: 1 });
    await annTab.waitFor((frame) => frame.data?.includes('"notifications":true') ?? false, 5_000, fromAnn);
    // The stream keeps order: once a later message is in Bob's, Ann's frame would have been too.
    await deliver('447700966004', 'after the opening');
    await bobTab.waitFor((frame) => frame.data?.includes('after the opening') ?? false, 5_000, fromBob);
    expect(bobTab.frames.slice(fromBob).filter((frame) => frame.data?.includes('"notifications"'))).toEqual([]);
  } finally {
    annTab.close();
    bobTab.close();
  }
});

it('a new person’s account starts with the conversations already there read', async () => {
  const client = await dee.client.clients.create.mutate({ name: 'Olga Older', phone: '+447700966005' });
  await deliver('447700966005', 'before the newcomer');
  const newcomer = await signIn('nia@unread.test', 'Nia Newcomer', 'staff');
  expect(await unreadOf(newcomer, client.id)).toEqual({ listed: 0, row: 0, summary: 0 });
  await deliver('447700966005', 'after the newcomer');
  expect(await unreadOf(newcomer, client.id)).toEqual({ listed: 1, row: 1, summary: 1 });
});
