import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UNKNOWN_OUTCOME_PREFIX } from '../../shared/provider-messages';
import { Communication } from '../../server/core/db/models/index';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { startLostAnswerProxy, type TLostAnswerProxy } from '../support/lost-answer-proxy';
import { match } from '../support/matchers';
import { failureOf } from '../support/trpc-failure';
import { cloudPayload, postWebhook, sql } from '../support/webhook';

// A receipt proves only its own message, and a 5xx is not a refusal
// (server/decisions/0014-unknown-outcome-is-not-failed.md; server/messaging/README.md "Sending messages", Unknown outcome).

let live: TLiveSetup;
let proxy: TLostAnswerProxy;

beforeAll(async () => {
  proxy = await startLostAnswerProxy();
  live = await startLiveSetup({ MESSAGING_PROVIDER_URL: proxy.url }, { providerTimeoutMs: 600 });
  proxy.target = live.sim.url;
});
afterAll(async () => {
  await live?.stop();
  await proxy?.close();
});
beforeEach(() => {
  live.sim.requests.length = 0;
  live.sim.configure({ autoReceipts: false, receiptsBeforeAnswer: [], answerDelayMs: 0 });
});

/** A signed status for `id` to `digits`, dated by the provider `secondsAgo` before now (undefined: undated). */
function postStatus(id: string, status: string, digits: string, secondsAgo?: number) {
  const timestamp = secondsAgo === undefined ? {} : { timestamp: String(Math.floor(Date.now() / 1000) - secondsAgo) };
  return postWebhook(live.server.url, cloudPayload({ statuses: [{ id, status, recipient_id: digits, ...timestamp }] }));
}

/** As if the kept receipts for `id` had reached this server `seconds` earlier than they did. */
const backDateArrival = (id: string, seconds: number) =>
  sql(live.server.databaseUrl, 'UPDATE chat_receipts SET created_at = created_at - make_interval(secs => $2) WHERE chat_msg_id = $1', [
    id,
    seconds,
  ]);

const acceptedFor = (digits: string) => live.sim.accepted.filter((a) => a.to === digits);
const reconciledTrail = (recordId: number) =>
  sql(live.server.databaseUrl, `SELECT 1 FROM audit_events WHERE action = 'chat.reconciled' AND subject = $1`, [
    `communication:${recordId}`,
  ]);

async function expectStillUnknown(recordId: number): Promise<void> {
  const stored = (await Communication.findByPk(recordId))!;
  expect(stored).toMatchObject({ status: 'pending', error: match.stringMatching(`^${UNKNOWN_OUTCOME_PREFIX}`) });
  expect(stored.metadata).toMatchObject({ outcome: 'unknown' });
  expect(stored.metadata.chat_msg_id).toBeUndefined();
  expect(await reconciledTrail(recordId)).toEqual([]);
}

describe('a receipt proves only its own message', () => {
  it('a receipt that reached this server 20 s before the send is not taken by it; a plain Retry is refused, a confirmed one sends it', async () => {
    const digits = '447700900610';
    const client = await live.staff.clients.create.mutate({ name: 'Orphan Twenty', phone: '+44 7700 900610' });
    expect((await postStatus('wamid.ORPHAN1', 'delivered', digits, 20)).status).toBe(200);
    await backDateArrival('wamid.ORPHAN1', 20);

    live.sim.queueResponse({ hang: true });
    const record = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Never left' });
    expect(record).toMatchObject({ status: 'pending', metadata: { outcome: 'unknown' } });
    await expectStillUnknown(record.id);
    expect(acceptedFor(digits)).toHaveLength(0);

    expect((await failureOf(live.staff.chat.retry.mutate({ id: record.id }))).data).toMatchObject({ code: 'CONFLICT' });
    const again = await live.staff.chat.retry.mutate({ id: record.id, confirm: true });
    expect(again).toMatchObject({ status: 'sent', metadata: { retry_of: record.id } });
    expect(acceptedFor(digits)).toHaveLength(1);
  });

  it('nor one that reached it 70 s before, whatever time the provider gives it (here none), also when more of its statuses come later', async () => {
    const digits = '447700900616';
    const client = await live.staff.clients.create.mutate({ name: 'Orphan Seventy', phone: '+44 7700 900616' });
    expect((await postStatus('wamid.ORPHAN2', 'sent', digits)).status).toBe(200);
    await backDateArrival('wamid.ORPHAN2', 70);

    live.sim.queueResponse({ hang: true });
    const record = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Not that one either' });
    await expectStillUnknown(record.id);
    // The same message read now: its id first reached this server before the send began.
    expect((await postStatus('wamid.ORPHAN2', 'read', digits, 0)).status).toBe(200);
    await expectStillUnknown(record.id);
    expect(acceptedFor(digits)).toHaveLength(0);
  });

  it('an earlier failed send to that number may own a receipt: the send of unknown outcome takes nothing', async () => {
    const digits = '447700900617';
    const client = await live.staff.clients.create.mutate({ name: 'Failed Before', phone: '+44 7700 900617' });
    live.sim.queueResponse({ status: 429 });
    await failureOf(live.staff.chat.send.mutate({ clientId: client.id, body: 'Failed first' }));
    expect(await Communication.findOne({ where: { body: 'Failed first' } })).toMatchObject({ status: 'failed' });
    live.sim.queueResponse({ hang: true });
    const lost = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Then lost' });

    expect((await postStatus('wamid.WHOSE', 'sent', digits, 0)).status).toBe(200);
    await expectStillUnknown(lost.id);
  });
});

describe('a 5xx is not a refusal', () => {
  it.each([500, 503])(
    'a %i after the provider took the send: unknown outcome, a plain Retry is refused, the provider has one copy, and its receipt settles it',
    async (status) => {
      const digits = status === 500 ? '447700900619' : '447700900620';
      const client = await live.staff.clients.create.mutate({ name: `Lost Behind ${status}`, phone: `+${digits}` });
      proxy.failNextSendAfterIt(status);
      const record = await live.staff.chat.send.mutate({ clientId: client.id, body: `Taken, then ${status}` });
      expect(record).toMatchObject({
        status: 'pending',
        metadata: { outcome: 'unknown' },
        error: match.stringMatching(`^${UNKNOWN_OUTCOME_PREFIX}.*HTTP ${status}`),
      });
      const unconfirmed = await failureOf(live.staff.chat.retry.mutate({ id: record.id }));
      expect(unconfirmed.data).toMatchObject({ code: 'CONFLICT' });
      expect(unconfirmed.message).toMatch(/It may have reached them already/);
      expect(acceptedFor(digits)).toHaveLength(1);

      // The provider's receipt for the copy it took comes after the call began: the send takes its id.
      const [taken] = acceptedFor(digits);
      expect((await live.sim.postReceipt(taken!.id, 'delivered', digits)).status).toBe(200);
      const settled = (await Communication.findByPk(record.id))!;
      expect(settled).toMatchObject({ status: 'delivered', error: null });
      expect(settled.metadata).toMatchObject({ chat_msg_id: taken!.id, reconciled: true });
      expect(acceptedFor(digits)).toHaveLength(1);
    },
  );

  it('a reaction answered with a 5xx may show on their phone: it says so, and is not called a refusal', async () => {
    const digits = '447700900621';
    await live.staff.clients.create.mutate({ name: 'Reacted To', phone: `+${digits}` });
    const { id } = await live.sim.sendInbound(digits, 'Thank you!');
    const message = (await Communication.findOne({ where: { metadata: { chat_msg_id: id } } }))!;
    proxy.failNextSendAfterIt(503);
    const error = await failureOf(live.staff.chat.react.mutate({ communicationId: message.id, emoji: '👍' }));
    expect(error.message).toMatch(/may or may not show on their phone/);
    expect(live.sim.message(id)?.reaction).toMatchObject({ emoji: '👍' });
  });
});

describe('a reaction’s receipt is never taken for a send that never left', () => {
  /** A client's message to react to, and a send to that number whose answer was lost and that never reached the provider. */
  async function lostSendBesideAMessage(digits: string, name: string) {
    const client = await live.staff.clients.create.mutate({ name, phone: `+${digits}` });
    const { id: inboundId } = await live.sim.sendInbound(digits, 'hello');
    const message = (await Communication.findOne({ where: { metadata: { chat_msg_id: inboundId } } }))!;
    live.sim.queueResponse({ hang: true });
    const lost = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Never left' });
    expect(lost).toMatchObject({ status: 'pending', metadata: { outcome: 'unknown' } });
    expect(acceptedFor(digits)).toHaveLength(0);
    return { inboundId, message, lost };
  }

  it('a reaction whose answer was lost: its receipt adopts nothing, and the send stays unknown', async () => {
    const digits = '447700900622';
    const { inboundId, message, lost } = await lostSendBesideAMessage(digits, 'Reaction Lost');
    proxy.failNextSendAfterIt(503);
    const error = await failureOf(live.staff.chat.react.mutate({ communicationId: message.id, emoji: '👍' }));
    expect(error.message).toMatch(/may or may not show on their phone/);

    const reactionId = live.sim.message(inboundId)!.reaction!.id;
    expect((await live.sim.postReceipt(reactionId, 'sent', digits)).status).toBe(200);
    await expectStillUnknown(lost.id);
  });

  it('a reaction whose receipt beats its answer: the receipt adopts nothing, then the reaction is the firm’s', async () => {
    const digits = '447700900623';
    const { inboundId, message, lost } = await lostSendBesideAMessage(digits, 'Reaction Slow');
    const held = proxy.holdNextSendAnswer();
    const reacting = live.staff.chat.react.mutate({ communicationId: message.id, emoji: '👍' });
    await held.reached;
    const reactionId = live.sim.message(inboundId)!.reaction!.id;
    expect((await live.sim.postReceipt(reactionId, 'sent', digits)).status).toBe(200);
    await expectStillUnknown(lost.id);

    held.release();
    await reacting;
    const reacted = (await Communication.findByPk(message.id))!;
    expect(reacted.metadata.firm_reaction_ids).toEqual([reactionId]);
    expect(reacted.metadata).toMatchObject({ firm_reaction_calls: [] });
    await expectStillUnknown(lost.id);
  });
});

describe('a send matched by its receipt alone is not resent unasked', () => {
  it('its failure reported later still needs a confirmed Retry: the report may be another message’s', async () => {
    const digits = '447700900624';
    const client = await live.staff.clients.create.mutate({ name: 'Adopted Then Failed', phone: `+${digits}` });
    proxy.failNextSendAfterIt(503);
    const record = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Taken, then failed' });
    const [taken] = acceptedFor(digits);
    expect((await live.sim.postReceipt(taken!.id, 'sent', digits)).status).toBe(200);
    expect((await Communication.findByPk(record.id))!.metadata).toMatchObject({ chat_msg_id: taken!.id, reconciled: true });

    const error = { code: 131000, title: 'Something went wrong', details: 'Not delivered' };
    expect((await live.sim.postReceipt(taken!.id, 'failed', digits, error)).status).toBe(200);
    expect(await Communication.findByPk(record.id)).toMatchObject({
      status: 'failed',
      error: match.stringMatching(`^${UNKNOWN_OUTCOME_PREFIX}.*Not delivered`),
    });
    const unconfirmed = await failureOf(live.staff.chat.retry.mutate({ id: record.id }));
    expect(unconfirmed.data).toMatchObject({ code: 'CONFLICT' });
    expect(unconfirmed.message).toMatch(/It may have reached them already/);
    expect(acceptedFor(digits)).toHaveLength(1);

    expect(await live.staff.chat.retry.mutate({ id: record.id, confirm: true })).toMatchObject({ status: 'sent' });
    expect(acceptedFor(digits)).toHaveLength(2);
  });
});

describe('only a receipt the provider dates at or after the call is adopted', () => {
  it('a receipt held back by webhook retries, dated before the call, adopts nothing though it arrives after', async () => {
    const digits = '447700900625';
    const client = await live.staff.clients.create.mutate({ name: 'Held Back', phone: `+${digits}` });
    const webhookUrl = `${live.server.url}/api/webhooks/chat`;
    live.sim.configure({ webhookUrl: 'http://127.0.0.1:1/refused', webhookRetryBaseMs: 20, webhookRetryCapMs: 50 });
    try {
      // Another tool's message, reported 30 s ago; this server was not taking posts then.
      await live.sim.postReceipt('wamid.HELD-BACK', 'sent', digits, undefined, Date.now() - 30_000);
      expect(live.sim.retriesWaiting()).toBe(1);
      live.sim.queueResponse({ hang: true });
      const lost = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Sent after the report' });
      expect(lost).toMatchObject({ status: 'pending', metadata: { outcome: 'unknown' } });
    } finally {
      live.sim.configure({ webhookUrl, webhookRetryBaseMs: undefined, webhookRetryCapMs: undefined });
    }
    await live.sim.settleRetries();
    const arrived = await sql(live.server.databaseUrl, 'SELECT 1 FROM chat_receipts WHERE chat_msg_id = $1', ['wamid.HELD-BACK']);
    expect(arrived).toHaveLength(1);
    const lost = (await Communication.findOne({ where: { body: 'Sent after the report' } }))!;
    await expectStillUnknown(lost.id);
  });

  it.each([
    ['carries no time', undefined],
    ['is dated two minutes after it reached this server', -120],
  ])('a receipt that %s adopts nothing', async (_how, secondsAgo) => {
    const digits = secondsAgo === undefined ? '447700900626' : '447700900627';
    const client = await live.staff.clients.create.mutate({ name: `Undated ${digits}`, phone: `+${digits}` });
    live.sim.queueResponse({ hang: true });
    const lost = await live.staff.chat.send.mutate({ clientId: client.id, body: 'Its receipt is not trusted' });
    expect((await postStatus(`wamid.UNTRUSTED-${digits}`, 'sent', digits, secondsAgo)).status).toBe(200);
    await expectStillUnknown(lost.id);
  });
});
