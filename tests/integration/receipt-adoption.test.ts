import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UNKNOWN_OUTCOME_PREFIX } from '../../shared/provider-messages';
import { Communication } from '../../server/core/db/models/index';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { startLostAnswerProxy, type TLostAnswerProxy } from '../support/lost-answer-proxy';
import { match } from '../support/matchers';
import { failureOf } from '../support/trpc-failure';
import { cloudPayload, postWebhook, sql } from '../support/webhook';

// A receipt proves only its own message, and a 5xx is not a refusal
// (server/decisions/0014-unknown-outcome-is-not-failed.md; README "Sending messages", Unknown outcome).

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
