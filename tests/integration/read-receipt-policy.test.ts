import { TRPCClientError } from '@trpc/client';
import superjson, { type SuperJSONResult } from 'superjson';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { ConfigError, loadConfig } from '../../server/core/config';
import { notifyOverdueConversations } from '../../server/ownership/conversation-timers';
import { openLiveStream, type TFrame } from '../support/live-stream';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { createHttpClient } from '../support/test-server';
import { sql } from '../support/webhook';

// Read receipts by the firm's policy (settings.readReceipts / setReadReceipts; READ_RECEIPTS is only the
// first default), a reply that ends the wait clearing the overdue notifications, and a mention's
// notification that shows the note's first words (server/messaging/README.md "Read receipts").

let live: TLiveSetup;
let samId: number;
let pat: ReturnType<typeof createHttpClient>['client'];
let phoneSeq = 100;

const readCalls = () =>
  live.sim.requests.filter((r) => r.method === 'POST' && r.path === '/messages' && (r.body as { status?: string }).status === 'read');

/** A client who has written in, assigned to `assignee` (null: nobody). */
async function conversation(name: string, assignee: number | null) {
  const digits = `447700901${String(phoneSeq++).padStart(3, '0')}`;
  const client = await live.director.clients.create.mutate({ name, phone: `+${digits}` });
  const { id } = await live.sim.sendInbound(digits, `A question from ${name}`);
  if (assignee !== null) await live.director.inbox.assign.mutate({ clientId: client.id, userId: assignee });
  live.sim.requests.length = 0;
  return { clientId: client.id, messageId: id };
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return (error as { data?: { code?: string } }).data?.code;
}

beforeAll(async () => {
  live = await startLiveSetup();
  samId = (await live.staff.auth.me.query())!.id;
  await createUser({ email: 'pat@firm.test', name: 'Pat Colleague', role: 'staff', password: 'colleague-password' });
  pat = createHttpClient(live.server.url).client;
  await pat.auth.signIn.mutate({ email: 'pat@firm.test', password: 'colleague-password' });
});
afterAll(() => live?.stop());
beforeEach(() => {
  live.sim.requests.length = 0;
});

describe('the policy in Settings', () => {
  it('directors read and set it, audited from and to; staff may not; a mode it does not know is refused', async () => {
    expect(await live.director.settings.readReceipts.query()).toEqual({ mode: 'off', updatedAt: null, updatedBy: null });
    expect(await codeOf(live.staff.settings.readReceipts.query())).toBe('FORBIDDEN');
    expect(await codeOf(live.staff.settings.setReadReceipts.mutate({ mode: 'anyone' }))).toBe('FORBIDDEN');
    expect(await codeOf(live.director.settings.setReadReceipts.mutate({ mode: 'everyone' as 'anyone' }))).toBe('BAD_REQUEST');

    const saved = await live.director.settings.setReadReceipts.mutate({ mode: 'assignee' });
    expect(saved).toMatchObject({ mode: 'assignee', updatedBy: { name: 'Dee Director' } });
    expect(await live.director.settings.readReceipts.query()).toMatchObject({ mode: 'assignee' });
    await live.director.settings.setReadReceipts.mutate({ mode: 'assignee' }); // the same again: no change, no event
    const events = await sql<{ detail: unknown; subject: string }>(
      live.server.databaseUrl,
      "SELECT detail, subject FROM audit_events WHERE action = 'settings.read_receipts' ORDER BY id",
    );
    expect(events).toEqual([{ detail: { from: 'off', to: 'assignee' }, subject: 'read_receipt_policy' }]);
  });

  it('READ_RECEIPTS is the first default and accepts off, assignee or anyone', () => {
    expect(loadConfig({}).readReceipts).toBe('off');
    expect(loadConfig({ READ_RECEIPTS: 'anyone' }).readReceipts).toBe('anyone');
    expect(() => loadConfig({ READ_RECEIPTS: 'everyone' })).toThrow(ConfigError);
    expect(() => loadConfig({ READ_RECEIPTS: 'everyone' })).toThrow(/READ_RECEIPTS: must be "off", "assignee" or "anyone"/);
  });
});

describe('whose opening marks the client’s message read at the provider', () => {
  it('off: nobody’s, not even the assignee’s', async () => {
    await live.director.settings.setReadReceipts.mutate({ mode: 'off' });
    const c = await conversation('Olga Off', samId);
    await live.staff.inbox.markRead.mutate({ clientId: c.clientId });
    await pat.inbox.markRead.mutate({ clientId: c.clientId });
    expect(readCalls()).toHaveLength(0);
  });

  it('assignee: a colleague opening it first tells nothing; the assignee’s opening does, once', async () => {
    await live.director.settings.setReadReceipts.mutate({ mode: 'assignee' });
    const c = await conversation('Asha Assigned', samId);
    await pat.inbox.markRead.mutate({ clientId: c.clientId });
    await live.director.inbox.markRead.mutate({ clientId: c.clientId });
    expect(readCalls()).toHaveLength(0);
    await live.staff.inbox.markRead.mutate({ clientId: c.clientId });
    await live.staff.inbox.markRead.mutate({ clientId: c.clientId });
    expect(readCalls().map((r) => (r.body as { message_id: string }).message_id)).toEqual([c.messageId]);
  });

  it('assignee, while nobody has the conversation: anyone’s opening, once', async () => {
    await live.director.settings.setReadReceipts.mutate({ mode: 'assignee' });
    const c = await conversation('Uma Unassigned', null);
    await pat.inbox.markRead.mutate({ clientId: c.clientId });
    await live.staff.inbox.markRead.mutate({ clientId: c.clientId });
    expect(readCalls().map((r) => (r.body as { message_id: string }).message_id)).toEqual([c.messageId]);
  });

  it('anyone: the first opener’s, once', async () => {
    await live.director.settings.setReadReceipts.mutate({ mode: 'anyone' });
    const c = await conversation('Ansel Anyone', samId);
    await pat.inbox.markRead.mutate({ clientId: c.clientId });
    await live.staff.inbox.markRead.mutate({ clientId: c.clientId });
    await live.director.inbox.markRead.mutate({ clientId: c.clientId });
    expect(readCalls().map((r) => (r.body as { message_id: string }).message_id)).toEqual([c.messageId]);
  });
});

const isNotifications = (frame: TFrame) =>
  frame.event === undefined &&
  !!frame.data &&
  superjson.deserialize<{ notifications?: true }>(JSON.parse(frame.data) as SuperJSONResult).notifications === true;

describe('notifications', () => {
  it('a reply in the conversation marks its overdue notification read, and the assignee’s open pages hear of it', async () => {
    const c = await conversation('Otis Overdue', samId);
    await notifyOverdueConversations(0);
    const overdue = async () =>
      (await live.staff.notifications.list.query()).items.find(
        (n) => n.kind === 'overdue' && 'clientId' in n.threadRef && n.threadRef.clientId === c.clientId,
      );
    expect(await overdue()).toMatchObject({ readAt: null });
    const unread = (await live.staff.notifications.unreadCount.query()).count;

    const stream = await openLiveStream(live.server.url, live.staffCookie);
    try {
      await stream.waitFor((f) => f.event === 'connected');
      const from = stream.frames.length;
      await pat.chat.send.mutate({ clientId: c.clientId, body: 'Sorry for the wait: on it now.' });
      await stream.waitFor(isNotifications, 5_000, from);
    } finally {
      stream.close();
    }
    expect((await overdue())?.readAt).toBeInstanceOf(Date);
    expect((await live.staff.notifications.unreadCount.query()).count).toBe(unread - 1);
  });

  it('a mention shows the note’s first words to the person mentioned, and nothing once a wall keeps them out', async () => {
    const c = await conversation('Mina Mention', null);
    const words =
      'Please call her back about the lease renewal before Friday, she is worried about the break clause and the deposit; the landlord has not answered her letters since March';
    const note = await live.director.chat.addNote.mutate({ clientId: c.clientId, body: `@Sam Staff   ${words}`, mentions: [samId] });
    const mention = (await live.staff.notifications.list.query()).items.find((n) => n.communicationId === note.id)!;
    expect(mention.kind).toBe('mention');
    // Spaces made single, cut at a word within 140 characters.
    expect(mention.noteWords).toBe(
      '@Sam Staff Please call her back about the lease renewal before Friday, she is worried about the break clause and the deposit; the landlord…',
    );
    // Other kinds carry no words.
    expect((await live.staff.notifications.list.query()).items.filter((n) => n.kind !== 'mention').every((n) => n.noteWords === null)).toBe(
      true,
    );

    const { id: deeId } = (await live.director.auth.me.query())!;
    await live.director.access.addMember.mutate({ clientId: c.clientId, userId: deeId });
    await live.director.access.setRestricted.mutate({ clientId: c.clientId, restricted: true });
    const after = JSON.stringify((await live.staff.notifications.list.query()).items);
    expect(after).not.toContain('lease renewal');
  });
});
