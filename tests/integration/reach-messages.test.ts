import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import superjson from 'superjson';
import { createUser } from '../../server/auth/users';
import { ConfigError, loadConfig } from '../../server/core/config';
import { Communication } from '../../server/core/db/models/index';
import { createLogger } from '../../server/core/logger';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import type { AppRouter } from '../../server/app/app-router';
import { captureLogLines } from '../support/log-capture';
import { openLiveStream } from '../support/live-stream';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { match } from '../support/matchers';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, WEBHOOK_SECRET } from '../support/webhook';

// Reactions, quick-reply buttons, read receipts on the client's phone and templates sent with a
// file: the app in live mode against the provider simulator over HTTP, READ_RECEIPTS=assignee
// (server/messaging/README.md "Reactions", "Quick-reply buttons", "Read receipts", "Sending messages").

const KEY = 'reach-sim-key-0123456789';
const FIRM = '442079460000'; // FIRM_PHONE's default, as the provider names the firm's number
const AMELIA = '447700900123';
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n% the engagement letter\n'), Buffer.alloc(2_000, 0x20), Buffer.from('\n%%EOF\n')]);
// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

type TClient = ReturnType<typeof createHttpClient>['client'];

async function failureOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
}

/** Polls `read` until `holds` is true of it (or fails after `ms`). */
async function eventually<T>(read: () => Promise<T>, holds: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`not so within ${ms} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('with READ_RECEIPTS=assignee', () => {
  const { lines, destination } = captureLogLines();
  let sim: ProviderSimulator;
  let server: TTestServer;
  let staff: TClient;
  let director: TClient;
  let staffCookie: string;
  let samId: number;
  let amelia: { id: number };
  let vanta: { id: number };

  const messageCalls = () => sim.requests.filter((r) => r.method === 'POST' && r.path === '/messages');
  const readCalls = () => messageCalls().filter((r) => (r.body as { status?: string }).status === 'read');
  const recordOf = async (chatMsgId: string) => (await Communication.findOne({ where: { metadata: { chat_msg_id: chatMsgId } } }))!;
  const inbound = async (from: string, body: string) => {
    const { id } = await sim.sendInbound(from, body);
    return { chatMsgId: id, record: await recordOf(id) };
  };
  const upload = async (bytes: Buffer, type: string, name: string, cookie = staffCookie) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
    const res = await fetch(`${server.url}/api/media`, { method: 'POST', body: form, headers: { cookie } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { attachmentId: number }).attachmentId;
  };
  const control = async (path: string, body?: unknown) => {
    const res = await fetch(`${sim.url}/__sim/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> & Record<string, unknown>[] };
  };
  const provider = async (body: unknown) => {
    const res = await fetch(`${sim.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PROVIDER-API-KEY': KEY },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as { error?: { code: number; error_data?: { details: string } } } };
  };

  beforeAll(async () => {
    sim = await startProviderSimulator({ apiKey: KEY, webhookSecret: WEBHOOK_SECRET, autoReceipts: false });
    server = await startTestServer(
      {
        MESSAGING_API_KEY: KEY,
        MESSAGING_PROVIDER_URL: sim.url,
        MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET,
        SESSION_SECRET: 'reach-session-secret-0123456789abcdef',
        READ_RECEIPTS: 'assignee',
      },
      createLogger('info', destination),
    );
    sim.configure({ webhookUrl: `${server.url}/api/webhooks/chat` });
    samId = (await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' })).id;
    const deeId = (await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' })).id;
    const signedIn = createHttpClient(server.url);
    staff = signedIn.client;
    await staff.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    staffCookie = [...signedIn.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    director = createHttpClient(server.url).client;
    await director.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
    amelia = await director.clients.create.mutate({ name: 'Amelia Hart', phone: `+${AMELIA}` });
    vanta = await director.clients.create.mutate({ name: 'Vanta Holdings', phone: '+447700900555' });
    await director.access.addMember.mutate({ clientId: vanta.id, userId: deeId });
    await director.access.setRestricted.mutate({ clientId: vanta.id, restricted: true });
    await director.chat.refreshTemplates.mutate();
  });
  afterAll(async () => {
    await sim?.settle();
    await sim?.close();
    await server?.stop();
  });
  beforeEach(() => {
    sim.requests.length = 0;
    sim.configure({ enforceWindow: false, apiMode: 'cloud', autoReceipts: false });
  });

  describe('reactions', () => {
    it('sends the provider’s reaction and shows it on the bubble from the firm’s number, live; a new one replaces it, an empty one removes it', async () => {
      const { chatMsgId, record } = await inbound(AMELIA, 'Here are the papers you asked for');
      const stream = await openLiveStream(server.url, staffCookie);
      try {
        const reacted = await staff.chat.react.mutate({ communicationId: record.id, emoji: '👍' });
        expect(messageCalls().map((r) => r.body)).toEqual([
          {
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to: AMELIA,
            type: 'reaction',
            reaction: { message_id: chatMsgId, emoji: '👍' },
          },
        ]);
        expect(reacted.metadata.reactions).toEqual([{ from: FIRM, emoji: '👍', at: match.any(String), by: samId }]);
        expect(sim.message(chatMsgId)?.reaction).toMatchObject({ emoji: '👍' });
        // Live: the record comes to open views with its reaction.
        await stream.waitFor((frame) => {
          const data = frame.data ? superjson.parse<{ items?: { id: number; metadata: { reactions?: unknown[] } }[] }>(frame.data) : null;
          return data?.items?.some((item) => item.id === record.id && item.metadata.reactions?.length === 1) ?? false;
        });
      } finally {
        stream.close();
      }

      const replaced = await staff.chat.react.mutate({ communicationId: record.id, emoji: '❤️' });
      expect(replaced.metadata.reactions).toEqual([{ from: FIRM, emoji: '❤️', at: match.any(String), by: samId }]);
      const removed = await director.chat.react.mutate({ communicationId: record.id, emoji: '' });
      expect(removed.metadata.reactions).toEqual([]);
      expect(messageCalls().map((r) => (r.body as { reaction: { emoji: string } }).reaction.emoji)).toEqual(['👍', '❤️', '']);
      expect(sim.message(chatMsgId)?.reaction).toBeNull();
      // Nothing to take away: the provider is not asked again.
      await staff.chat.react.mutate({ communicationId: record.id, emoji: '' });
      expect(messageCalls()).toHaveLength(3);
    });

    it('one reaction per sender: the firm’s phone reacting to the same message replaces the app’s; a client’s own reactions stay theirs', async () => {
      const question = await staff.chat.send.mutate({ clientId: amelia.id, body: 'Shall we meet on Friday?' });
      await sim.sendInboundKind({ kind: 'reaction', from: AMELIA, targetId: question.metadata.chat_msg_id!, emoji: '😀' });
      const { chatMsgId, record } = await inbound(AMELIA, 'Friday works');
      await staff.chat.react.mutate({ communicationId: record.id, emoji: '🙏' });
      // The same reaction, changed on the firm's phone: the provider echoes it from the firm's number.
      const echoed = await postWebhook(server.url, {
        entry: [
          {
            changes: [
              {
                field: 'smb_message_echoes',
                value: {
                  messaging_product: 'whatsapp',
                  message_echoes: [
                    {
                      from: FIRM,
                      to: AMELIA,
                      id: 'wamid.echo-reaction',
                      timestamp: String(Math.floor(Date.now() / 1000)),
                      type: 'reaction',
                      reaction: { message_id: chatMsgId, emoji: '👍' },
                    },
                  ],
                },
              },
            ],
          },
        ],
      });
      expect(echoed.status).toBe(200);
      expect((await Communication.findByPk(record.id))!.metadata.reactions).toEqual([{ from: FIRM, emoji: '👍', at: match.any(String) }]);
      expect((await Communication.findByPk(question.id))!.metadata.reactions).toEqual([
        { from: AMELIA, emoji: '😀', at: match.any(String) },
      ]);
      // And back from the app: still one, the firm's.
      await staff.chat.react.mutate({ communicationId: record.id, emoji: '🎉' });
      expect((await Communication.findByPk(record.id))!.metadata.reactions).toEqual([
        { from: FIRM, emoji: '🎉', at: match.any(String), by: samId },
      ]);
    });

    it('the provider’s receipt for the firm’s reaction is never taken for a lost send to that number', async () => {
      const { record } = await inbound(AMELIA, 'Thanks for the update');
      // A send to her whose answer was lost a moment ago (its call began just now): a receipt for an
      // id no record has, arriving after that, may be its.
      const lostSend = async () =>
        (
          await sql<{ id: number }>(
            server.databaseUrl,
            `INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata)
             VALUES ('chat', 'outbound', 'pending', 'Its answer was lost', $1, $2,
                     jsonb_build_object('outcome', 'unknown', 'provider_call_at', now())) RETURNING id`,
            [amelia.id, AMELIA],
          )
        )[0]!.id;
      const receipt = (id: string) =>
        postWebhook(
          server.url,
          cloudPayload({ statuses: [{ id, status: 'sent', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: AMELIA }] }),
        );
      const metadataOf = async (id: number) =>
        (
          await sql<{ metadata: Record<string, unknown> }>(server.databaseUrl, 'SELECT metadata FROM communications WHERE id = $1', [id])
        )[0]!.metadata;

      const lost = await lostSend();
      await staff.chat.react.mutate({ communicationId: record.id, emoji: '👍' });
      const reactionId = sim.accepted.at(-1)!.id;
      expect((await receipt(reactionId)).status).toBe(200);
      await eventually(
        () => sql(server.databaseUrl, 'SELECT 1 FROM chat_receipts WHERE chat_msg_id = $1', [reactionId]),
        (rows) => rows.length === 1,
      );
      expect(await metadataOf(lost)).toEqual({ outcome: 'unknown', provider_call_at: match.any(String) });
      // Aimed true: the same receipt for an id that is no reaction's is the lost send's.
      expect((await receipt('wamid.the-lost-one')).status).toBe(200);
      await eventually(
        () => metadataOf(lost),
        (metadata) => metadata.chat_msg_id === 'wamid.the-lost-one',
      );
      await sql(server.databaseUrl, "UPDATE communications SET status = 'failed' WHERE id = $1", [lost]);
    });

    it('refuses, before any provider call: the firm’s own message, a note, not one emoji, no provider id, older than 30 days', async () => {
      const own = await staff.chat.send.mutate({ clientId: amelia.id, body: 'Our own message' });
      const note = await staff.chat.addNote.mutate({ clientId: amelia.id, body: 'Internal: call her back' });
      const { record } = await inbound(AMELIA, 'A message');
      sim.requests.length = 0;

      const ownRefusal = await failureOf(staff.chat.react.mutate({ communicationId: own.id, emoji: '👍' }));
      expect(ownRefusal.data?.code).toBe('BAD_REQUEST');
      expect(ownRefusal.message).toBe('Only a client’s message can be reacted to, not one the firm sent.');
      const noteRefusal = await failureOf(staff.chat.react.mutate({ communicationId: note.id, emoji: '👍' }));
      expect(noteRefusal.data?.code).toBe('BAD_REQUEST');
      expect(noteRefusal.message).toMatch(/notes stay within the firm/);
      for (const emoji of ['👍👍', 'ok', '👍 ok', '1', '🇬', '👍\u{E0041}\u{E0042}', '👍\u0301\u0301', '👍\u{E0100}']) {
        const refusal = await failureOf(staff.chat.react.mutate({ communicationId: record.id, emoji }));
        expect(refusal.data?.code).toBe('BAD_REQUEST');
        expect(refusal.data?.fieldErrors?.emoji).toEqual(['React with exactly one emoji']);
      }

      const noId = await inbound(AMELIA, 'Another message');
      await sql(server.databaseUrl, `UPDATE communications SET metadata = metadata - 'chat_msg_id' WHERE id = $1`, [noId.record.id]);
      expect((await failureOf(staff.chat.react.mutate({ communicationId: noId.record.id, emoji: '👍' }))).message).toMatch(
        /no id at the provider/,
      );

      const old = await inbound(AMELIA, 'An old message');
      await sql(
        server.databaseUrl,
        `UPDATE communications SET provider_timestamp = now() - interval '31 days', created_at = now() - interval '31 days' WHERE id = $1`,
        [old.record.id],
      );
      const tooOld = await failureOf(staff.chat.react.mutate({ communicationId: old.record.id, emoji: '👍' }));
      expect(tooOld.data?.code).toBe('PRECONDITION_FAILED');
      expect(tooOld.message).toMatch(/^The provider only takes reactions to messages from the last 30 days: this message is older/);

      expect(messageCalls()).toHaveLength(0);
      expect((await Communication.findByPk(old.record.id))!.metadata.reactions).toBeUndefined();
    });

    it('a walled message is NOT_FOUND, as if it did not exist; a number that opted out is PRECONDITION_FAILED', async () => {
      const { record } = await inbound('447700900555', 'Vanta here');
      const walled = await failureOf(staff.chat.react.mutate({ communicationId: record.id, emoji: '👍' }));
      expect(walled.data?.code).toBe('NOT_FOUND');
      expect(walled.message).toBe('Message not found.');
      const missing = await failureOf(staff.chat.react.mutate({ communicationId: 2_000_000_000, emoji: '👍' }));
      expect(missing.message).toBe(walled.message);

      const stopper = await director.clients.create.mutate({ name: 'Otto Out', phone: '+447700900777' });
      const earlier = await inbound('447700900777', 'Thanks for the update');
      await sim.sendInbound('447700900777', 'STOP');
      await eventually(
        () => director.clients.get.query({ clientId: stopper.id }),
        (c) => c.optedOutAt !== null,
      );
      sim.requests.length = 0;
      const optedOut = await failureOf(staff.chat.react.mutate({ communicationId: earlier.record.id, emoji: '👍' }));
      expect(optedOut.data?.code).toBe('PRECONDITION_FAILED');
      expect(optedOut.message).toMatch(/asked not to receive chat messages/);
      expect(messageCalls()).toHaveLength(0);
    });

    it('the simulator refuses a reaction to a message it holds as older than 30 days, and the app says so', async () => {
      const { chatMsgId, record } = await inbound(AMELIA, 'Sent long ago, at the provider’s clock');
      expect((await control('age', { messageId: chatMsgId, days: 31 })).status).toBe(200);
      const refusal = await failureOf(staff.chat.react.mutate({ communicationId: record.id, emoji: '👍' }));
      expect(refusal.data?.code).toBe('PRECONDITION_FAILED');
      expect(refusal.message).toMatch(/^The provider only takes reactions to messages from the last 30 days .*refused this one/);
      expect(messageCalls()).toHaveLength(1); // asked, and refused
      expect((await Communication.findByPk(record.id))!.metadata.reactions).toBeUndefined();
      expect(sim.message(chatMsgId)?.reaction).toBeUndefined();
    });

    it('the simulator checks a reaction’s shape and target as the provider does', async () => {
      const { chatMsgId } = await inbound(AMELIA, 'Hello');
      const body = (messageId: string, emoji: string, to = AMELIA) => ({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        type: 'reaction',
        reaction: { message_id: messageId, emoji },
      });
      const unknown = await provider(body('wamid.NEVER', '👍'));
      expect(unknown).toMatchObject({ status: 400, json: { error: { code: 131009 } } });
      const otherNumber = await provider(body(chatMsgId, '👍', '447700900999'));
      expect(otherNumber).toMatchObject({ status: 400, json: { error: { code: 131009 } } });
      const ours = await staff.chat.send.mutate({ clientId: amelia.id, body: 'One of ours' });
      expect(await provider(body(ours.metadata.chat_msg_id!, '👍'))).toMatchObject({ status: 400, json: { error: { code: 131009 } } });
      expect((await provider(body(chatMsgId, 'two words'))).status).toBe(400);
      expect((await provider({ ...body(chatMsgId, '👍'), extra: 1 })).status).toBe(400);
      expect(await control('age', { messageId: 'wamid.NEVER', days: 31 })).toMatchObject({ status: 404 });

      expect((await provider(body(chatMsgId, '👍'))).status).toBe(200);
      const listed = (await control('messages')).json as unknown as { id: string; reaction?: { emoji: string } }[];
      expect(listed.find((m) => m.id === chatMsgId)?.reaction).toMatchObject({ emoji: '👍' });
    });
  });

  describe('quick-reply buttons', () => {
    const buttons = [
      { id: 'tue', title: 'Tuesday works' },
      { id: 'other', title: 'Another day' },
    ];

    it('sends the exact interactive body, keeps the buttons on a text record, and the client’s press comes back linked to it', async () => {
      const question = await staff.chat.sendButtons.mutate({ clientId: amelia.id, body: '  Can you come in on Tuesday?  ', buttons });
      expect(messageCalls().map((r) => r.body)).toEqual([
        {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: AMELIA,
          type: 'interactive',
          interactive: {
            type: 'button',
            body: { text: 'Can you come in on Tuesday?' },
            action: {
              buttons: [
                { type: 'reply', reply: { id: 'tue', title: 'Tuesday works' } },
                { type: 'reply', reply: { id: 'other', title: 'Another day' } },
              ],
            },
          },
        },
      ]);
      expect(question).toMatchObject({ status: 'sent', direction: 'outbound', body: 'Can you come in on Tuesday?', sentBy: { id: samId } });
      expect(question.metadata.buttons).toEqual(buttons);
      expect(question.metadata.kind ?? 'text').toBe('text');

      // The client presses one (the simulator's control API, as a test in another process would).
      const pressed = await control('press', { messageId: question.metadata.chat_msg_id, buttonId: 'other' });
      expect(pressed).toMatchObject({ status: 200, json: { status: 200 } });
      const reply = await recordOf(pressed.json.id as string);
      expect(reply).toMatchObject({ direction: 'inbound', body: 'Another day', clientId: amelia.id });
      expect(reply.metadata).toMatchObject({ kind: 'button', context_id: question.metadata.chat_msg_id });
      // The thread's reply quote finds the question by the provider id the choice names.
      const { items } = await staff.inbox.thread.query({ clientId: amelia.id });
      const answered = items.find((i) => i.id === reply.id)!;
      expect(items.find((i) => i.metadata.chat_msg_id === answered.metadata.context_id)?.id).toBe(question.id);
      const held = (await control('messages')).json as unknown as { id: string; pressed?: { buttonId: string } }[];
      expect(held.find((m) => m.id === question.metadata.chat_msg_id)?.pressed?.buttonId).toBe('other');
      // A button the question does not have cannot be pressed.
      expect((await control('press', { messageId: question.metadata.chat_msg_id, buttonId: 'nope' })).status).toBe(400);
    });

    it('refuses bad buttons and bodies before anything is written or sent', async () => {
      const before = await Communication.count();
      const cases: [string, unknown, string, RegExp][] = [
        ['four buttons', [1, 2, 3, 4].map((n) => ({ id: `b${n}`, title: `B${n}` })), 'buttons', /at most 3 buttons/],
        ['no button', [], 'buttons', /at least one button/],
        ['a title over 20', [{ id: 'a', title: 'x'.repeat(21) }], 'buttons', /at most 20 characters/],
        ['an empty title', [{ id: 'a', title: '   ' }], 'buttons', /needs a title/],
        [
          'the same id twice',
          [
            { id: 'a', title: 'Yes' },
            { id: 'a', title: 'No' },
          ],
          'buttons',
          /same id/,
        ],
        [
          'the same title twice',
          [
            { id: 'a', title: 'Yes' },
            { id: 'b', title: 'Yes' },
          ],
          'buttons',
          /same title/,
        ],
        ['a control character in a title', [{ id: 'a', title: 'Y\u0007es' }], 'buttons', /hidden control or text-direction character/],
        ['a title turned around', [{ id: 'a', title: 'Yes\u202Eon' }], 'buttons', /hidden control or text-direction character/],
        ['an unseen space in a title', [{ id: 'a', title: 'Yes\u200B' }], 'buttons', /hidden control or text-direction character/],
        [
          'two titles that look the same, composed differently',
          [
            { id: 'a', title: 'Caf\u00e9' },
            { id: 'b', title: 'Cafe\u0301' },
          ],
          'buttons',
          /same title/,
        ],
      ];
      for (const [, given, field, message] of cases) {
        const refusal = await failureOf(
          staff.chat.sendButtons.mutate({ clientId: amelia.id, body: 'Question?', buttons: given as typeof buttons }),
        );
        expect(refusal.data?.code).toBe('BAD_REQUEST');
        expect(refusal.data?.fieldErrors?.[field]?.join(' ') ?? refusal.message).toMatch(message);
      }
      const long = await failureOf(staff.chat.sendButtons.mutate({ clientId: amelia.id, body: 'x'.repeat(1025), buttons }));
      expect(long.data?.fieldErrors?.body).toEqual(['A message with buttons can be at most 1024 characters']);
      const empty = await failureOf(staff.chat.sendButtons.mutate({ clientId: amelia.id, body: '  ', buttons }));
      expect(empty.data?.fieldErrors?.body).toEqual(['Type the question first']);
      await staff.chat.sendButtons.mutate({ clientId: amelia.id, body: 'x'.repeat(1024), buttons }); // the limit itself is fine
      expect(await Communication.count()).toBe(before + 1);
      expect(messageCalls()).toHaveLength(1);
    });

    it('outside the 24-hour window the provider refuses it as it refuses free text', async () => {
      const cold = await director.clients.create.mutate({ name: 'Colin Cold', phone: '+447700900888' });
      sim.configure({ enforceWindow: true, apiMode: 'onprem' });
      const refused = await failureOf(staff.chat.sendButtons.mutate({ clientId: cold.id, body: 'Still interested?', buttons }));
      expect(refused.message).toBe('More than 24 hours have passed since Colin Cold last wrote: send an approved template.');
      sim.configure({ apiMode: 'cloud' });
      const accepted = await staff.chat.sendButtons.mutate({ clientId: cold.id, body: 'Still interested?', buttons });
      const failed = await eventually(
        () => Communication.findByPk(accepted.id),
        (r) => r?.status === 'failed',
      );
      expect(failed?.error).toMatch(/More than 24 hours have passed/);
    });

    it('walls, opt-outs and echo ids hold as for any send; a failed question is retried with its buttons', async () => {
      const walled = await failureOf(staff.chat.sendButtons.mutate({ clientId: vanta.id, body: 'Question?', buttons }));
      expect(walled.data?.code).toBe('NOT_FOUND');
      const stopper = await director.clients.create.mutate({ name: 'Stella Stop', phone: '+447700900444' });
      await sim.sendInbound('447700900444', 'STOP');
      await eventually(
        () => director.clients.get.query({ clientId: stopper.id }),
        (c) => c.optedOutAt !== null,
      );
      sim.requests.length = 0;
      const optedOut = await failureOf(staff.chat.sendButtons.mutate({ clientId: stopper.id, body: 'Question?', buttons }));
      expect(optedOut.data?.code).toBe('PRECONDITION_FAILED');
      expect(messageCalls()).toHaveLength(0);

      const echoId = '5b2c1a40-2f7e-4f51-9d0e-1f6f0d0c0b01';
      const first = await staff.chat.sendButtons.mutate({ clientId: amelia.id, body: 'Once only?', buttons, echoId });
      const again = await staff.chat.sendButtons.mutate({ clientId: amelia.id, body: 'Once only?', buttons, echoId });
      expect(again.id).toBe(first.id);
      expect(messageCalls()).toHaveLength(1);

      sim.queueResponse({ status: 429 });
      const failure = await failureOf(staff.chat.sendButtons.mutate({ clientId: amelia.id, body: 'Try me again?', buttons }));
      expect(failure.data?.code).toBe('BAD_GATEWAY');
      const failed = (await Communication.findOne({ where: { body: 'Try me again?', status: 'failed' } }))!;
      sim.requests.length = 0;
      const retried = await staff.chat.retry.mutate({ id: failed.id });
      expect(retried.metadata).toMatchObject({ buttons, retry_of: failed.id });
      expect((messageCalls()[0]?.body as { type: string; interactive: unknown }).type).toBe('interactive');
    });
  });

  describe('read on the client’s phone', () => {
    it('the assignee opening the conversation marks the client’s last message read at the provider, once; nobody else does', async () => {
      const bea = await director.clients.create.mutate({ name: 'Bea Reader', phone: '+447700900321' });
      const first = await inbound('447700900321', 'First question');
      const last = await inbound('447700900321', 'Second question');
      await director.inbox.assign.mutate({ clientId: bea.id, userId: samId });
      sim.requests.length = 0;

      await director.inbox.markRead.mutate({ clientId: bea.id }); // not the assignee
      expect(readCalls()).toHaveLength(0);

      await staff.inbox.markRead.mutate({ clientId: bea.id });
      expect(readCalls().map((r) => r.body)).toEqual([{ messaging_product: 'whatsapp', status: 'read', message_id: last.chatMsgId }]);
      expect((await Communication.findByPk(last.record.id))!.metadata.marked_read_at).toEqual(match.any(String));
      expect((await Communication.findByPk(first.record.id))!.metadata.marked_read_at).toBeUndefined();
      // The provider marks the earlier one read with it.
      expect(sim.message(first.chatMsgId)?.readAt).toEqual(match.any(Number));

      await staff.inbox.markRead.mutate({ clientId: bea.id });
      expect(readCalls()).toHaveLength(1); // the same message is not marked twice

      const next = await inbound('447700900321', 'Third question');
      await staff.inbox.markRead.mutate({ clientId: bea.id });
      expect(readCalls().map((r) => (r.body as { message_id: string }).message_id)).toEqual([last.chatMsgId, next.chatMsgId]);

      // A STOP stops read marks too: nothing more reaches the phone of a number that asked for nothing.
      await inbound('447700900321', 'STOP');
      await staff.inbox.markRead.mutate({ clientId: bea.id });
      expect(readCalls()).toHaveLength(2);
    });

    it('works for an unlinked number’s conversation too', async () => {
      const stranger = '447700900654';
      const { chatMsgId, record } = await inbound(stranger, 'Who is this?');
      await director.inbox.assign.mutate({ phone: `+${stranger}`, userId: samId });
      sim.requests.length = 0;
      await staff.inbox.markRead.mutate({ phone: `+${stranger}` });
      expect(readCalls().map((r) => (r.body as { message_id: string }).message_id)).toEqual([chatMsgId]);
      expect((await Communication.findByPk(record.id))!.metadata.marked_read_at).toEqual(match.any(String));
    });

    it('a provider failure does not fail the local read: logged without the message, and tried again at the next opening', async () => {
      const cara = await director.clients.create.mutate({ name: 'Cara Failing', phone: '+447700900322' });
      const secret = 'the private words of Cara';
      const { chatMsgId, record } = await inbound('447700900322', secret);
      await director.inbox.assign.mutate({ clientId: cara.id, userId: samId });
      sim.requests.length = 0;
      const logged = lines.length;

      sim.queueResponse({ status: 500 });
      expect(await staff.inbox.markRead.mutate({ clientId: cara.id })).toEqual({ updated: 1 });
      expect((await Communication.findByPk(record.id))!.readAt).not.toBeNull();
      expect((await Communication.findByPk(record.id))!.metadata.marked_read_at).toBeUndefined();
      const warning = lines.slice(logged).find((line) => line.includes('not mark a message read'));
      expect(warning).toBeDefined();
      expect(JSON.parse(warning!)).toMatchObject({ recordId: record.id, status: 500 });
      expect(lines.slice(logged).join('\n')).not.toContain(secret);

      await staff.inbox.markRead.mutate({ clientId: cara.id });
      expect(readCalls().map((r) => (r.body as { message_id: string }).message_id)).toEqual([chatMsgId, chatMsgId]);
      expect((await Communication.findByPk(record.id))!.metadata.marked_read_at).toEqual(match.any(String));
    });

    it('the simulator answers a read with {success: true} and refuses an id it never received', async () => {
      const { chatMsgId } = await inbound(AMELIA, 'Read me');
      expect(await provider({ messaging_product: 'whatsapp', status: 'read', message_id: chatMsgId })).toEqual({
        status: 200,
        json: { success: true },
      });
      expect(await provider({ messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.NEVER' })).toMatchObject({
        status: 400,
        json: { error: { code: 131009 } },
      });
      expect((await provider({ messaging_product: 'whatsapp', status: 'seen', message_id: chatMsgId })).status).toBe(400);
    });
  });

  describe('templates sent with a file', () => {
    it('the catalogue says which templates need one', async () => {
      const { templates } = await staff.chat.providerTemplates.query();
      expect(templates.find((t) => t.name === 'document_attached')).toMatchObject({ headerFormat: 'DOCUMENT', paramCount: 2 });
      expect(templates.find((t) => t.name === 'hello_world')?.headerFormat).toBeNull();
    });

    it('uploads the file, sends the template with it in its header, and keeps it as the record’s attachment', async () => {
      const attachmentId = await upload(PDF, 'application/pdf', 'Engagement letter.pdf');
      const sent = await staff.chat.sendTemplate.mutate({
        clientId: amelia.id,
        name: 'document_attached',
        language: 'en_GB',
        params: ['Amelia', 'HART-2026-001'],
        header: { attachmentId },
      });
      const uploadCall = sim.requests.find((r) => r.path === '/media')!;
      expect(uploadCall.body).toMatchObject({ fileName: 'Engagement letter.pdf', mimeType: 'application/pdf' });
      expect(sent.attachments).toEqual([match.objectContaining({ id: attachmentId, kind: 'document', fileName: 'Engagement letter.pdf' })]);
      const [stored] = await sql<{ provider_media_id: string }>(
        server.databaseUrl,
        'SELECT provider_media_id FROM attachments WHERE id = $1',
        [attachmentId],
      );
      expect(messageCalls().map((r) => r.body)).toEqual([
        {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: AMELIA,
          type: 'template',
          template: {
            name: 'document_attached',
            language: { code: 'en_GB' },
            components: [
              {
                type: 'header',
                parameters: [{ type: 'document', document: { id: stored!.provider_media_id, filename: 'Engagement letter.pdf' } }],
              },
              {
                type: 'body',
                parameters: [
                  { type: 'text', text: 'Amelia' },
                  { type: 'text', text: 'HART-2026-001' },
                ],
              },
            ],
          },
        },
      ]);
      expect(sim.mediaBytes(stored!.provider_media_id)?.equals(PDF)).toBe(true);
      expect(sent).toMatchObject({
        status: 'sent',
        body: 'Hello Amelia, the attached document is about HART-2026-001. Please read it and reply here with any questions.',
        metadata: {
          kind: 'document',
          template: { name: 'document_attached', language: 'en_GB', params: ['Amelia', 'HART-2026-001'], header: { kind: 'document' } },
        },
      });
      expect(sim.message(sent.metadata.chat_msg_id!)?.headerMediaId).toBe(stored!.provider_media_id);
    });

    it('refuses before anything is sent: a file for a template without a file header, none for one that needs it, the wrong kind, someone else’s or a sent upload', async () => {
      const send = (header: { attachmentId: number } | undefined, name = 'document_attached', client = staff) =>
        failureOf(
          client.chat.sendTemplate.mutate({
            clientId: amelia.id,
            name,
            language: name === 'hello_world' ? 'en_US' : 'en_GB',
            params: name === 'hello_world' ? [] : ['Amelia', 'HART-2026-001'],
            ...(header ? { header } : {}),
          }),
        );
      const pdf = await upload(PDF, 'application/pdf', 'letter.pdf');
      const photo = await upload(PNG, 'image/png', 'photo.png');
      const directorsCookie = await (async () => {
        const { client, jar } = createHttpClient(server.url);
        await client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
        return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      })();
      const othersUpload = await upload(PDF, 'application/pdf', 'theirs.pdf', directorsCookie);
      const sentAlready = await upload(PDF, 'application/pdf', 'sent.pdf');
      await staff.chat.send.mutate({ clientId: amelia.id, attachmentId: sentAlready });
      const before = await Communication.count();
      sim.requests.length = 0;

      const noHeaderTemplate = await send({ attachmentId: pdf }, 'hello_world');
      expect(noHeaderTemplate.data?.code).toBe('BAD_REQUEST');
      expect(noHeaderTemplate.message).toBe('The template "hello_world" has no document, photo or video header: send it without a file.');
      const missing = await send(undefined);
      expect(missing.message).toBe('The template "document_attached" is sent with a document in its header: attach one.');
      expect(missing.data?.fieldErrors?.header).toEqual(['Attach a document.']);
      const wrongKind = await send({ attachmentId: photo });
      expect(wrongKind.message).toBe('The template "document_attached" needs a document in its header, not a photo.');
      const others = await send({ attachmentId: othersUpload });
      expect(others.data?.code).toBe('NOT_FOUND');
      const sent = await send({ attachmentId: sentAlready });
      expect(sent.data?.code).toBe('CONFLICT');

      expect(sim.requests).toHaveLength(0);
      expect(await Communication.count()).toBe(before);
      // The refused upload is still the sender's to use.
      await staff.chat.sendTemplate.mutate({
        clientId: amelia.id,
        name: 'document_attached',
        language: 'en_GB',
        params: ['Amelia', 'HART-2026-001'],
        header: { attachmentId: pdf },
      });
    });

    it('a failed template with a file is retried with a copy of the same file', async () => {
      const attachmentId = await upload(PDF, 'application/pdf', 'Retry letter.pdf');
      sim.queueResponse({ status: 200, body: { id: 'fake-upload' } }); // the upload "succeeds"…
      sim.queueResponse({ status: 429 }); // …and the send is refused
      const failure = await failureOf(
        staff.chat.sendTemplate.mutate({
          clientId: amelia.id,
          name: 'document_attached',
          language: 'en_GB',
          params: ['Amelia', 'HART-2026-002'],
          header: { attachmentId },
        }),
      );
      expect(failure.data?.code).toBe('BAD_GATEWAY');
      const [failed] = await sql<{ id: number }>(
        server.databaseUrl,
        `SELECT id FROM communications WHERE status = 'failed' AND metadata->'template'->'params'->>1 = 'HART-2026-002'`,
      );
      sim.requests.length = 0;
      const retried = await staff.chat.retry.mutate({ id: failed!.id });
      expect(retried).toMatchObject({ status: 'sent', metadata: { retry_of: failed!.id, template: { header: { kind: 'document' } } } });
      expect(retried.attachments).toEqual([match.objectContaining({ kind: 'document', fileName: 'Retry letter.pdf', size: PDF.length })]);
      expect(retried.attachments[0]!.id).not.toBe(attachmentId);
      const header = (
        messageCalls()[0]?.body as { template: { components: { type: string; parameters: { document: { id: string } }[] }[] } }
      ).template.components[0]!;
      expect(header.type).toBe('header');
      expect(sim.mediaBytes(header.parameters[0]!.document.id)?.equals(PDF)).toBe(true);
    });

    it('the simulator checks a template’s header as the provider does', async () => {
      const template = (name: string, components: unknown[]) => ({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: AMELIA,
        type: 'template',
        template: { name, language: { code: name === 'hello_world' ? 'en_US' : 'en_GB' }, components },
      });
      const body = {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Amelia' },
          { type: 'text', text: 'HART' },
        ],
      };
      const media = await sim.addMedia({ bytes: PDF, mimeType: 'application/pdf' });
      const header = (type: string, id = media.id) => ({ type: 'header', parameters: [{ type, [type]: { id } }] });
      const code = async (sent: unknown) => (await provider(sent)).json.error?.code ?? null;
      expect(await code(template('document_attached', [body]))).toBe(131008);
      expect(await code(template('document_attached', [header('image'), body]))).toBe(132012);
      expect(await code(template('document_attached', [header('document', 'no-such-media'), body]))).toBe(131053);
      expect(await code(template('hello_world', [header('document')]))).toBe(132012);
      expect(await code(template('document_attached', [header('document'), body, body]))).toBe(400);
      expect(await code(template('document_attached', [header('document'), body]))).toBeNull();
    });
  });
});

describe('with READ_RECEIPTS off (the default)', () => {
  let live: TLiveSetup;
  beforeAll(async () => {
    live = await startLiveSetup();
  });
  afterAll(() => live?.stop());

  it('not even the assignee opening a conversation marks anything read at the provider', async () => {
    const { id: samId } = (await live.staff.auth.me.query())!;
    const client = await live.director.clients.create.mutate({ name: 'Amelia Hart', phone: `+${AMELIA}` });
    const { id } = await live.sim.sendInbound(AMELIA, 'Hello?');
    await live.director.inbox.assign.mutate({ clientId: client.id, userId: samId });
    live.sim.requests.length = 0;
    expect(await live.staff.inbox.markRead.mutate({ clientId: client.id })).toEqual({ updated: 1 });
    expect(live.sim.requests).toHaveLength(0);
    expect((await Communication.findOne({ where: { metadata: { chat_msg_id: id } } }))!.metadata.marked_read_at).toBeUndefined();
  });

  it('a READ_RECEIPTS value other than off, assignee or anyone stops the server at start-up, naming it', () => {
    expect(loadConfig({}).readReceipts).toBe('off');
    expect(loadConfig({ READ_RECEIPTS: 'assignee' }).readReceipts).toBe('assignee');
    expect(() => loadConfig({ READ_RECEIPTS: 'everyone' })).toThrow(ConfigError);
    expect(() => loadConfig({ READ_RECEIPTS: 'everyone' })).toThrow(/READ_RECEIPTS: must be "off", "assignee" or "anyone"/);
  });
});
