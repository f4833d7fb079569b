import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { UNKNOWN_OUTCOME_PREFIX } from '../../shared/provider-messages';
import { Attachment, Communication } from '../../server/core/db/models/index';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { openLiveStream } from '../support/live-stream';
import { match } from '../support/matchers';
import { cloudPayload, postWebhook, sql, textMessage } from '../support/webhook';

// The promises the product makes under faults (server/README.md "Security and reliability"): a STOP stops every send to
// its number, the provider's key goes nowhere else, a send whose answer was lost is never sent again
// without a person's say-so, one message's history stays bounded, and a slow provider holds no
// database connection while it trickles a file.

let live: TLiveSetup;
/** A server that must never be reached: where a hostile redirect points. */
let trap: http.Server;
let trapUrl: string;
const trapped: IncomingMessage[] = [];

beforeAll(async () => {
  live = await startLiveSetup(
    {},
    {
      providerTimeoutMs: 600,
      mediaQueue: { backoffMs: [60_000], pollMs: 50, leaseMs: 5_000, deadlineBaseMs: 300, minBytesPerSecond: 1024 * 1024 },
      // A delivery of 50 edits of 4 KB each (bounded records) can take longer than the provider's 5 s on a
      // loaded machine; the 503 it would get there is covered by webhook-outage and frozen-database.
      timeouts: { deliveryMs: 30_000 },
    },
  );
  trap = http.createServer((req, res) => {
    trapped.push(req);
    res.end('{"messages":[{"id":"stolen"}]}');
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => trap?.close(resolve));
  await live?.stop();
});
beforeEach(() => {
  live.sim.requests.length = 0;
  live.sim.configure({ autoReceipts: false, receiptsBeforeAnswer: [], answerDelayMs: 0, mediaChunkDelayMs: 0 });
});

const sends = () => live.sim.requests.filter((r) => r.method === 'POST' && (r.path === '/messages' || r.path === '/media'));

async function refusal(promise: Promise<unknown>): Promise<TRPCClientError<never>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<never>;
}

const upload = async (bytes: Buffer, type: string, name: string) => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${live.server.url}/api/media`, { method: 'POST', body: form, headers: { cookie: live.staffCookie } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { attachmentId: number }).attachmentId;
};

const auditOf = (action: string) =>
  sql<{ subject: string; detail: Record<string, unknown> }>(
    live.server.databaseUrl,
    'SELECT subject, detail FROM audit_events WHERE action = $1 ORDER BY id',
    [action],
  );

describe('a STOP belongs to the number', () => {
  it('a shared number: a STOP opts out both clients, and every send path to it is refused with no provider call', async () => {
    const carol = await live.staff.clients.create.mutate({ name: 'Carol Share', phone: '+44 7700 900601' });
    const chris = await live.staff.clients.create.mutate({ name: 'Chris Share', phone: '+44 7700 900601', confirm: true });
    expect((await live.sim.sendInbound('447700900601', 'STOP')).status).toBe(200);

    for (const client of [carol, chris]) {
      expect(await live.staff.clients.get.query({ clientId: client.id })).toMatchObject({
        optedOutAt: match.any(Date),
        optOutSource: 'message "STOP"',
      });
    }
    const attempts = [
      () => live.staff.chat.send.mutate({ clientId: carol.id, body: 'To Carol' }),
      () => live.staff.chat.send.mutate({ clientId: chris.id, body: 'To Chris' }),
      () => live.staff.chat.send.mutate({ to: '+44 7700 900601', body: 'To the number' }),
      () => live.staff.chat.sendTemplate.mutate({ clientId: chris.id, name: 'hello_world', language: 'en_US', params: [] }),
      () => live.staff.settings.sendTest.mutate({ to: '+44 7700 900601', body: 'A test' }),
    ];
    for (const attempt of attempts) {
      const error = await refusal(attempt());
      expect(error.data).toMatchObject({ code: 'PRECONDITION_FAILED' });
      expect(error.message).toMatch(/asked not to receive chat messages/);
    }
    expect(sends()).toHaveLength(0);
    const subjects = (await auditOf('client.opt_out')).map((e) => e.subject);
    expect(subjects).toEqual(expect.arrayContaining([`client:${carol.id}`, `client:${chris.id}`]));
  });

  it('a number no client has: its STOP stops sends to it, and is carried to a client it is given to later; START resumes', async () => {
    await live.sim.sendInbound('447700900602', 'unsubscribe');
    for (const attempt of [
      () => live.staff.chat.send.mutate({ to: '+44 7700 900602', body: 'Hello?' }),
      () => live.staff.settings.sendTest.mutate({ to: '+44 7700 900602', body: 'A test' }),
    ]) {
      expect((await refusal(attempt())).data).toMatchObject({ code: 'PRECONDITION_FAILED' });
    }
    expect((await auditOf('client.opt_out')).map((e) => e.subject)).toContain('number:447700900602');

    const later = await live.staff.clients.create.mutate({ name: 'Linked Later', phone: '+44 7700 900602' });
    expect(later.optedOutAt).toEqual(match.any(Date));
    expect((await refusal(live.staff.chat.send.mutate({ clientId: later.id, body: 'Now?' }))).data).toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    expect(sends()).toHaveLength(0);

    await live.sim.sendInbound('447700900602', 'START');
    expect((await live.staff.clients.get.query({ clientId: later.id })).optedOutAt).toBeNull();
    expect(await live.staff.chat.send.mutate({ clientId: later.id, body: 'Welcome back' })).toMatchObject({ status: 'sent' });
  });

  it('a STOP that lands while a file uploads to the provider stops the message itself', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Mid Upload', phone: '+44 7700 900603' });
    const attachmentId = await upload(Buffer.from('%PDF-1.4 a letter'), 'application/pdf', 'letter.pdf');
    const release = live.sim.holdUploads();
    const sending = live.staff.chat.send.mutate({ clientId: client.id, body: 'Your letter', attachmentId });
    await live.sim.waitForRequest((r) => r.path === '/media');
    await live.sim.sendInbound('447700900603', 'STOP');
    release();

    const error = await refusal(sending);
    expect(error.data).toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(live.sim.requests.filter((r) => r.path === '/messages')).toHaveLength(0);
    const record = await Communication.findOne({ where: { body: 'Your letter' } });
    expect(record).toMatchObject({ status: 'failed', error: match.stringContaining('asked not to receive chat messages') });
  });
});

describe('a STOP is not undone by an older START', () => {
  const text = (id: string, from: string, body: string, at: number) => textMessage(id, from, body, String(at));

  it('a START delivered again, or an older START arriving later or beside a newer STOP, never reopens the number', async () => {
    const deliver = (messages: unknown[]) => postWebhook(live.server.url, cloudPayload({ messages }));
    const client = await live.staff.clients.create.mutate({ name: 'Changed Mind', phone: '+44 7700 900621' });
    await deliver([text('wamid.om-1', '447700900621', 'STOP', 1763700000)]);
    await deliver([text('wamid.om-2', '447700900621', 'START', 1763700010)]);
    await deliver([text('wamid.om-3', '447700900621', 'STOP', 1763700020)]);
    expect((await deliver([text('wamid.om-2', '447700900621', 'START', 1763700010)])).json).toMatchObject({ stored: 0 });
    await deliver([text('wamid.om-4', '447700900621', 'START', 1763700015)]);
    expect((await live.staff.clients.get.query({ clientId: client.id })).optedOutAt).toEqual(match.any(Date));

    // In one delivery the provider's times decide, not the order of the items.
    await deliver([text('wamid.om-5', '447700900622', 'STOP', 1763700100), text('wamid.om-6', '447700900622', 'START', 1763700090)]);
    const preference = {
      messaging_product: 'whatsapp',
      user_preferences: [{ wa_id: '447700900623', category: 'marketing_messages', value: 'stop', timestamp: 1763700200 }],
      messages: [text('wamid.om-7', '447700900623', 'START', 1763700190)],
    };
    await postWebhook(live.server.url, {
      object: 'whatsapp_business_account',
      entry: [{ id: 'W', changes: [{ field: 'messages', value: preference }] }],
    });
    for (const to of ['+44 7700 900621', '+44 7700 900622', '+44 7700 900623']) {
      expect((await refusal(live.staff.chat.send.mutate({ to, body: 'Still there?' }))).data).toMatchObject({
        code: 'PRECONDITION_FAILED',
      });
    }
    expect(sends()).toHaveLength(0);
  });

  it('a START newer than the first STOP but older than a second one does not reopen', async () => {
    const deliver = (messages: unknown[]) => postWebhook(live.server.url, cloudPayload({ messages }));
    await deliver([text('wamid.tw-1', '447700900624', 'STOP', 1763700000)]);
    await deliver([text('wamid.tw-2', '447700900624', 'STOP', 1763700090)]);
    await deliver([text('wamid.tw-3', '447700900624', 'START', 1763700050)]);
    for (const to of ['+44 7700 900624']) {
      expect((await refusal(live.staff.chat.send.mutate({ to, body: 'Still there?' }))).data).toMatchObject({
        code: 'PRECONDITION_FAILED',
      });
    }
    expect(sends()).toHaveLength(0);
  });

  it("another country's number with the same last 9 digits is not the client's: its STOP neither stops nor can be cleared from the client", async () => {
    const madrid = await live.staff.clients.create.mutate({ name: 'Madrid Client', phone: '+34 612 345 678' });
    await live.sim.sendInbound('33612345678', 'STOP');
    expect((await live.staff.clients.get.query({ clientId: madrid.id })).optedOutAt).toBeNull();
    await live.director.clients.clearOptOut.mutate({ clientId: madrid.id });
    expect((await refusal(live.staff.chat.send.mutate({ to: '+33 6 12 34 56 78', body: 'Bonjour' }))).data).toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    expect(await live.staff.chat.send.mutate({ clientId: madrid.id, body: 'Hola' })).toMatchObject({ status: 'sent' });
  });

  it("a STOP from another spelling of a client's number (same last 9 digits) stops sends to the client", async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Buenos Aires', phone: '+54 9 11 1234 5678' });
    await live.sim.sendInbound('541112345678', 'Stop!');
    expect((await live.staff.clients.get.query({ clientId: client.id })).optedOutAt).toEqual(match.any(Date));
    expect((await refusal(live.staff.chat.send.mutate({ clientId: client.id, body: 'Hola' }))).data).toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    expect(sends()).toHaveLength(0);
  });
});

describe("the key never leaves the provider's host", () => {
  it('a send answered with a redirect fails with its reason and the redirect is not followed', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Redirected', phone: '+44 7700 900604' });
    live.sim.queueResponse({ status: 302, headers: { location: `${trapUrl}/messages` }, body: {} });
    const error = await refusal(live.staff.chat.send.mutate({ clientId: client.id, body: 'Follow me?' }));
    expect(error.message).toMatch(/redirect \(HTTP 302\) to 127\.0\.0\.1:\d+, which is not followed/);
    expect(trapped).toHaveLength(0);
    expect(await Communication.findOne({ where: { body: 'Follow me?' } })).toMatchObject({ status: 'failed' });
  });

  it('a media download answered with a redirect stores nothing and never reaches the other host', async () => {
    const mediaInfo = {
      url: 'https://lookaside.example.invalid/whatsapp_business/attachments/?mid=1',
      mime_type: 'image/jpeg',
      file_size: 3,
    };
    live.sim.queueResponse({ status: 200, body: mediaInfo });
    live.sim.queueResponse({ status: 302, headers: { location: `${trapUrl}/api/health` }, body: {} });
    const { id } = await live.sim.sendInboundKind({ kind: 'image', from: '447700900605', size: 3 });
    const record = (await Communication.findOne({ where: { metadata: { chat_msg_id: id } } }))!;
    await vi.waitFor(
      async () => {
        const file = await Attachment.findOne({ where: { communicationId: record.id } });
        expect(file?.error).toMatch(/HTTP 302/);
      },
      { timeout: 10_000, interval: 50 },
    );
    const file = (await Attachment.findOne({ where: { communicationId: record.id } }))!;
    expect(file.state).not.toBe('stored');
    expect(trapped).toHaveLength(0);
    // The thread says why, and when it is tried again (not "Downloading…" for ever).
    const [shown] = (await live.staff.inbox.thread.query({ phone: '447700900605' })).items.at(-1)!.attachments;
    expect(shown).toMatchObject({ state: 'pending', error: match.stringContaining('HTTP 302'), nextAttemptAt: match.any(Date) });
  });
});

describe('nothing is sent twice', () => {
  it('a send whose answer is lost stays pending as unknown, Retry asks first, and its receipt adopts it', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Slow Answer', phone: '+44 7700 900606' });
    live.sim.configure({ answerDelayMs: 1_500, autoReceipts: true, receiptDelaysMs: [10, 20, 30] });
    const record = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Did this go?' });
    expect(record).toMatchObject({ status: 'pending', error: match.stringMatching(`^${UNKNOWN_OUTCOME_PREFIX}`) });
    expect(record.metadata).toMatchObject({ outcome: 'unknown' });
    expect(record.metadata.chat_msg_id).toBeUndefined();
    // The inbox list says so too, not a clock.
    const { threads } = await live.staff.inbox.threads.query({});
    expect(threads.find((t) => t.clientId === client.id)?.last).toMatchObject({ id: record.id, outcome: 'unknown' });

    const unconfirmed = await refusal(live.staff.chat.retry.mutate({ id: record.id }));
    expect(unconfirmed.data).toMatchObject({ code: 'CONFLICT' });
    expect(unconfirmed.message).toMatch(/It may have reached them already/);
    expect(live.sim.requests.filter((r) => r.path === '/messages')).toHaveLength(1);

    // The provider did accept it: its receipts name the id the answer would have carried.
    await vi.waitFor(
      async () => {
        const stored = (await Communication.findByPk(record.id))!;
        expect(stored.status).toBe('read');
      },
      { timeout: 10_000, interval: 50 },
    );
    const stored = (await Communication.findByPk(record.id))!;
    expect(stored.metadata.chat_msg_id).toBe(live.sim.accepted.at(-1)!.id);
    expect(stored.metadata.outcome).toBeUndefined();
    expect(stored.error).toBeNull();
    expect((await auditOf('chat.reconciled')).at(-1)).toMatchObject({ subject: `communication:${record.id}` });
  });

  it('Retry of an unknown outcome, confirmed, sends a new attempt once', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Confirmed Retry', phone: '+44 7700 900607' });
    live.sim.queueResponse({ hang: true });
    const record = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Send again?' });
    expect(record.metadata.outcome).toBe('unknown');
    const again = await live.staff.chat.retry.mutate({ id: record.id, confirm: true });
    expect(again).toMatchObject({ status: 'sent', metadata: { retry_of: record.id } });
    expect((await refusal(live.staff.chat.retry.mutate({ id: record.id, confirm: true }))).data).toMatchObject({ code: 'CONFLICT' });
  });

  it('a queued send tried again with its echo id gets its first record back, also when both tries race', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Echoed Send', phone: '+44 7700 900611' });
    const first = await live.staff.chat.send.mutate({
      clientId: client.id,
      body: 'Queued while offline',
      echoId: 'a1b2c3d4-0000-4000-8000-000000000001',
    });
    const again = await live.staff.chat.send.mutate({
      clientId: client.id,
      body: 'Queued while offline',
      echoId: 'a1b2c3d4-0000-4000-8000-000000000001',
    });
    expect(again.id).toBe(first.id);
    const racing = await Promise.all(
      [1, 2, 3].map(() =>
        live.staff.chat.sendTemplate.mutate({
          clientId: client.id,
          name: 'hello_world',
          language: 'en_US',
          params: [],
          echoId: 'a1b2c3d4-0000-4000-8000-000000000002',
        }),
      ),
    );
    expect(new Set(racing.map((r) => r.id)).size).toBe(1);
    expect(live.sim.requests.filter((r) => r.path === '/messages')).toHaveLength(2);
    expect((await refusal(live.staff.chat.send.mutate({ clientId: client.id, body: 'x', echoId: 'not an id!' }))).data).toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('a receipt for another send still waiting for its answer is not taken by a send of unknown outcome', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Two In Flight', phone: '+44 7700 900612' });
    live.sim.queueResponse({ hang: true });
    const lost = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Lost answer' });
    expect(lost.metadata.outcome).toBe('unknown');
    live.sim.configure({ receiptsBeforeAnswer: ['sent'] });
    const next = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Answered, receipt first' });
    expect(next).toMatchObject({ status: 'sent', metadata: { chat_msg_id: live.sim.accepted.at(-1)!.id } });
    expect((await Communication.findByPk(lost.id))?.metadata).toMatchObject({ outcome: 'unknown' });
  });

  it('receipts that came before the answer was lost are matched when the send is marked unknown', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Receipts First', phone: '+44 7700 900613' });
    live.sim.configure({ receiptsBeforeAnswer: ['sent', 'delivered'], answerDelayMs: 1_500 });
    const record = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Delivered, answer lost' });
    expect(record).toMatchObject({ status: 'delivered', error: null, metadata: { chat_msg_id: live.sim.accepted.at(-1)!.id } });
    expect(record.metadata.outcome).toBeUndefined();
  });

  it("a receipt taken by a send of unknown outcome is given back when it turns out to be the firm's phone's message", async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Phone App Too', phone: '+44 7700 900614' });
    live.sim.queueResponse({ hang: true });
    const lost = await live.staff.chat.send.mutate({ clientId: client.id, body: 'From the app' });
    const receipt = {
      id: 'wamid.from-the-phone',
      status: 'delivered',
      timestamp: String(Math.floor(Date.now() / 1000)),
      recipient_id: '447700900614',
    };
    await postWebhook(live.server.url, cloudPayload({ statuses: [receipt] }));
    expect((await Communication.findByPk(lost.id))?.metadata.chat_msg_id).toBe('wamid.from-the-phone');
    const echo = {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '442079460000', phone_number_id: 'SIM' },
      message_echoes: [
        {
          from: '442079460000',
          to: '447700900614',
          id: 'wamid.from-the-phone',
          timestamp: receipt.timestamp,
          type: 'text',
          text: { body: 'Typed on the phone' },
        },
      ],
    };
    const answer = await postWebhook(live.server.url, {
      object: 'whatsapp_business_account',
      entry: [{ id: 'W', changes: [{ field: 'smb_message_echoes', value: echo }] }],
    });
    expect(answer.json).toMatchObject({ stored: 1 });
    expect(await Communication.findOne({ where: { metadata: { chat_msg_id: 'wamid.from-the-phone' } } })).toMatchObject({
      body: 'Typed on the phone',
    });
    expect(await Communication.findByPk(lost.id)).toMatchObject({ status: 'pending', metadata: { outcome: 'unknown' } });
  });

  it("a gateway's 502 or 504 is a lost answer, not a refusal: unknown outcome, and a plain Retry is refused", async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Gateway Timeout', phone: '+44 7700 900615' });
    for (const status of [502, 504]) {
      live.sim.queueResponse({ status });
      const record = await live.staff.chat.send.mutate({ clientId: client.id, body: `Behind a gateway ${status}` });
      expect(record).toMatchObject({ status: 'pending', metadata: { outcome: 'unknown' } });
      expect((await refusal(live.staff.chat.retry.mutate({ id: record.id }))).data).toMatchObject({ code: 'CONFLICT' });
    }
  });

  it('two unknown sends to one number: a receipt adopts neither (nothing is guessed)', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Two Unknowns', phone: '+44 7700 900608' });
    live.sim.queueResponse({ hang: true });
    live.sim.queueResponse({ hang: true });
    const first = await live.staff.chat.send.mutate({ clientId: client.id, body: 'One' });
    const second = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Two' });
    const receipt = {
      id: 'wamid.which-one',
      status: 'delivered',
      timestamp: String(Math.floor(Date.now() / 1000)),
      recipient_id: '447700900608',
    };
    expect((await postWebhook(live.server.url, cloudPayload({ statuses: [receipt] }))).status).toBe(200);
    for (const id of [first.id, second.id]) {
      expect((await Communication.findByPk(id))?.metadata).toMatchObject({ outcome: 'unknown' });
    }
  });
});

describe('bounded records', () => {
  it('300 edits of 4 KB keep the newest 20, count the rest, and no live frame carries more than 64 KB of history', async () => {
    await postWebhook(live.server.url, cloudPayload({ messages: [textMessage('wamid.edited-a-lot', '447700900609', 'original')] }));
    const stream = await openLiveStream(live.server.url, live.staffCookie);
    try {
      for (let i = 1; i <= 300; i += 50) {
        const edits = Array.from({ length: 50 }, (_, k) => ({
          from: '447700900609',
          id: `wamid.edit-${i + k}`,
          timestamp: String(1763700000 + i + k),
          type: 'edit',
          edit: { original_message_id: 'wamid.edited-a-lot', message: { type: 'text', text: { body: `${i + k} ${'x'.repeat(4090)}` } } },
        }));
        expect((await postWebhook(live.server.url, cloudPayload({ messages: edits }))).status).toBe(200);
      }
      const record = (await Communication.findOne({ where: { metadata: { chat_msg_id: 'wamid.edited-a-lot' } } }))!;
      expect(record.body.startsWith('300 ')).toBe(true);
      expect(record.metadata.edits).toHaveLength(20);
      expect(record.metadata.edits_dropped).toBe(280);
      expect(record.metadata.edits![0]!.body.startsWith('280 ')).toBe(true);

      // A retried delivery of a dropped edit changes nothing.
      const old = {
        from: '447700900609',
        id: 'wamid.edit-3',
        timestamp: String(1763700003),
        type: 'edit',
        edit: { original_message_id: 'wamid.edited-a-lot', message: { type: 'text', text: { body: 'old' } } },
      };
      await postWebhook(live.server.url, cloudPayload({ messages: [old] }));
      expect((await Communication.findByPk(record.id))?.body.startsWith('300 ')).toBe(true);

      await stream.until((frames) => frames.some((f) => f.data?.includes('"300 ')));
      const largest = Math.max(...stream.frames.map((f) => Buffer.byteLength(f.data ?? '')));
      expect(largest).toBeLessThan(80 * 1024);
      const thread = await live.staff.inbox.thread.query({ phone: '447700900609' });
      expect(thread.items.at(-1)?.metadata.edits).toHaveLength(20);
    } finally {
      stream.close();
    }
  });
});

describe('bounded reactions', () => {
  it('reactions on one message keep the newest 20, however many numbers an echo names', async () => {
    await postWebhook(live.server.url, cloudPayload({ messages: [textMessage('wamid.reacted-a-lot', '447700900632', 'react to me')] }));
    const echoes = Array.from({ length: 30 }, (_, k) => ({
      from: `4477009007${String(k).padStart(2, '0')}`,
      to: '447700900632',
      id: `wamid.echo-reaction-${k}`,
      timestamp: String(1763700000 + k),
      type: 'reaction',
      reaction: { message_id: 'wamid.reacted-a-lot', emoji: '👍' },
    }));
    const value = {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '442079460000', phone_number_id: 'SIM' },
      message_echoes: echoes,
    };
    await postWebhook(live.server.url, {
      object: 'whatsapp_business_account',
      entry: [{ id: 'W', changes: [{ field: 'smb_message_echoes', value }] }],
    });
    const record = (await Communication.findOne({ where: { metadata: { chat_msg_id: 'wamid.reacted-a-lot' } } }))!;
    expect(record.metadata.reactions!.length).toBeGreaterThan(0);
    expect(record.metadata.reactions!.length).toBeLessThanOrEqual(20);
  });
});

describe('bounded pages', () => {
  it('a page of heavy records ends at its byte budget and the next page carries on, nothing lost or repeated', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Heavy History', phone: '+44 7700 900631' });
    // 40 records each carrying twenty 10 KB earlier texts (about 200 KB each, 8 MB in all).
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata, created_at)
       SELECT 'chat', 'inbound', 'heavy ' || n, $1, '447700900631',
              jsonb_build_object('edits', (SELECT jsonb_agg(jsonb_build_object('body', repeat(md5(n::text || k::text), 320), 'at', now()))
                                           FROM generate_series(1, 20) k)),
              now() - make_interval(secs => n)
       FROM generate_series(1, 40) n`,
      [client.id],
    );
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await live.staff.timeline.client.query({ clientId: client.id, ...(cursor ? { cursor } : {}) });
      expect(Buffer.byteLength(JSON.stringify(page.items))).toBeLessThan(5 * 1024 * 1024);
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(new Set(seen).size).toBe(40);
    expect(seen).toHaveLength(40);
  });
});

describe('a trickling provider', () => {
  it('a download slower than its deadline fails with the reason, and holds no transaction open while bytes trickle', async () => {
    live.sim.configure({ mediaChunkDelayMs: 250 });
    const { id } = await live.sim.sendInboundKind({ kind: 'image', from: '447700900610', size: 6 * 64 * 1024 });
    await live.sim.waitForRequest((r) => r.path === '/whatsapp_business/attachments/');
    const record = (await Communication.findOne({ where: { metadata: { chat_msg_id: id } } }))!;
    // Sampled for as long as the bytes trickle in, until the download gives up.
    const idleInTransaction: number[] = [];
    for (;;) {
      const [row] = await sql<{ n: number; error: string | null }>(
        live.server.databaseUrl,
        // Held across a chunk's 250 ms wait, a transaction would sit idle that long; the pollers'
        // own transactions (snoozes, scheduled sends) are idle for a moment between statements.
        `SELECT (SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'
                   AND state_change < now() - interval '100 milliseconds') AS n,
                (SELECT error FROM attachments WHERE communication_id = $1) AS error`,
        [record.id],
      );
      idleInTransaction.push(row!.n);
      if (row!.error) {
        expect(row!.error).toMatch(/too slowly: not finished within 1 s/);
        break;
      }
    }
    expect(idleInTransaction.length).toBeGreaterThan(3);
    expect(Math.max(...idleInTransaction)).toBe(0);
  });
});
