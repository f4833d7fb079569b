import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client, Communication } from '../../server/core/db/models/index';
import { createClient } from '../../server/crm/clients';
import type { AppRouter } from '../../server/app/app-router';
import { startLiveSetup, SIM_API_KEY, type TLiveSetup } from '../support/live-setup';
import { match } from '../support/matchers';

let live: TLiveSetup;
let amelia: { id: number };

beforeAll(async () => {
  live = await startLiveSetup();
  amelia = await createClient({ name: 'Amelia Hart', phone: '+44 7700-900 123' });
});
afterAll(() => live?.stop());
beforeEach(() => {
  live.sim.requests.length = 0;
  live.sim.configure({ autoReceipts: false, receiptsBeforeAnswer: [] });
});

async function failureOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
}

describe('sending to the provider', () => {
  it('posts exactly the provider’s send body with the key header and stores the provider id as sent', async () => {
    const sent = await live.staff.chat.send.mutate({ clientId: amelia.id, body: '  Your documents are ready.  ' });
    expect(live.sim.requests).toHaveLength(1);
    const request = live.sim.requests[0]!;
    expect(request).toMatchObject({ method: 'POST', path: '/messages', apiKey: SIM_API_KEY, contentType: 'application/json' });
    expect(request.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '447700900123',
      type: 'text',
      text: { body: 'Your documents are ready.', preview_url: false },
    });
    expect(sent).toMatchObject({
      type: 'chat',
      direction: 'outbound',
      status: 'sent',
      clientId: amelia.id,
      peerPhone: '447700900123',
      error: null,
    });
    expect(sent.metadata.chat_msg_id).toMatch(/^wamid\.SIM/);
  });

  it('sends to a typed number, normalising "+44 7700-900 123" and linking the one matching client', async () => {
    const sent = await live.staff.chat.send.mutate({ to: '+44 7700-900 123', body: 'Hello' });
    expect((live.sim.requests[0]?.body as { to: string }).to).toBe('447700900123');
    expect(sent.clientId).toBe(amelia.id);
  });

  it('refuses an impossible number before anything is written or sent', async () => {
    const before = await Communication.count();
    const error = await failureOf(live.staff.settings.sendTest.mutate({ to: '+44 12', body: 'test' }));
    expect(error.data?.code).toBe('BAD_REQUEST');
    expect(error.data?.fieldErrors?.to?.[0]).toMatch(/not a possible phone number/);
    expect(await Communication.count()).toBe(before);
    expect(live.sim.requests).toHaveLength(0);
  });

  it('applies a receipt that arrived before the send answer was saved', async () => {
    live.sim.configure({ receiptsBeforeAnswer: ['sent', 'delivered'] });
    const sent = await live.staff.chat.send.mutate({ clientId: amelia.id, body: 'Race me' });
    expect(sent.status).toBe('delivered');
  });

  it('lets the simulator walk a message sent → delivered → read through the webhook', async () => {
    live.sim.configure({ autoReceipts: true, receiptDelaysMs: [20, 40, 60], outOfOrderRate: 0.5 });
    const sent = await live.staff.chat.send.mutate({ clientId: amelia.id, body: 'Watch the ticks' });
    await live.sim.settle();
    expect((await Communication.findByPk(sent.id))?.status).toBe('read');
  });
});

describe('provider failures', () => {
  const cases: [string, Parameters<TLiveSetup['sim']['queueResponse']>[0], RegExp][] = [
    [
      '401',
      { status: 401 },
      /^The provider rejected the API key; check MESSAGING_API_KEY \(another business number’s key: Settings › Business numbers\)\.$/,
    ],
    [
      '403',
      { status: 403 },
      /^The provider rejected the API key; check MESSAGING_API_KEY \(another business number’s key: Settings › Business numbers\)\.$/,
    ],
    ['404', { status: 404 }, /^The number is not found at the provider\.$/],
    ['429', { status: 429 }, /^The provider is rate-limiting messages at present/],
    [
      '400 cloud error_data.details',
      { status: 400, shape: 'cloud', details: 'Recipient phone number not in allowed list' },
      /^Recipient phone number not in allowed list$/,
    ],
    [
      '400 cloud message only',
      { status: 400, body: { error: { message: '(#131030) Recipient not allowed', code: 131030 } } },
      /^\(#131030\) Recipient not allowed$/,
    ],
    [
      '400 on-prem details',
      { status: 400, shape: 'onprem', details: 'Message failed: outside support window', title: 'Re-engagement' },
      /^Message failed: outside support window$/,
    ],
    ['400 on-prem title only', { status: 400, body: { errors: [{ code: 1013, title: 'User is not valid' }] } }, /^User is not valid$/],
    [
      '400 without detail',
      { status: 400, body: {} },
      /number may be unverified, or the recipient is outside the 24-hour window and a template is required/,
    ],
    // A 5xx is no refusal: the send is of unknown outcome (receipt-adoption.test.ts).
    ['418 (other non-OK)', { status: 418, body: {} }, /unexpected response \(HTTP 418\)/],
  ];

  it.each(cases)('%s → failed record with the actionable error, text kept, error thrown', async (_name, scripted, message) => {
    live.sim.queueResponse(scripted);
    const error = await failureOf(live.staff.chat.send.mutate({ clientId: amelia.id, body: `Keep this text (${_name})` }));
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(SIM_API_KEY);
    const record = await Communication.findOne({ where: { body: `Keep this text (${_name})` } });
    expect(record).toMatchObject({ status: 'failed', direction: 'outbound', clientId: amelia.id });
    expect(record?.error).toMatch(message);
  });

  it('retry resends a failed message as a new attempt and keeps the failed one', async () => {
    live.sim.queueResponse({ status: 429 });
    await failureOf(live.staff.chat.send.mutate({ clientId: amelia.id, body: 'Second time lucky' }));
    const failed = (await Communication.findOne({ where: { body: 'Second time lucky', status: 'failed' } }))!;
    const retried = await live.staff.chat.retry.mutate({ id: failed.id });
    expect(retried).toMatchObject({ status: 'sent', body: 'Second time lucky', clientId: amelia.id, metadata: { retry_of: failed.id } });
    expect(retried.id).not.toBe(failed.id);
    expect((await Communication.findByPk(failed.id))?.status).toBe('failed');
    await expect(live.staff.chat.retry.mutate({ id: retried.id })).rejects.toMatchObject({ data: { code: 'CONFLICT' } });
    expect((await Communication.findByPk(failed.id))?.metadata.resent_as).toBe(retried.id);
  });

  it('a failed message is resent once: a second Retry, even at the same moment, is refused and sends nothing', async () => {
    live.sim.queueResponse({ status: 429 });
    await failureOf(live.staff.chat.send.mutate({ clientId: amelia.id, body: 'Only once, please' }));
    const failed = (await Communication.findOne({ where: { body: 'Only once, please', status: 'failed' } }))!;
    live.sim.requests.length = 0;
    const outcomes = await Promise.allSettled([
      live.staff.chat.retry.mutate({ id: failed.id }),
      live.director.chat.retry.mutate({ id: failed.id }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ data: { code: 'CONFLICT' }, message: match.stringMatching(/already been resent/) });
    expect(live.sim.requests.filter((r) => r.path === '/messages')).toHaveLength(1);
    expect(await Communication.count({ where: { body: 'Only once, please' } })).toBe(2);
    const attempt = (outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{ id: number }>).value;
    expect((await Communication.findByPk(failed.id))?.metadata.resent_as).toBe(attempt.id);
    // Later, too: the failed record says where its copy went and offers no second send.
    await expect(live.staff.chat.retry.mutate({ id: failed.id })).rejects.toMatchObject({ data: { code: 'CONFLICT' } });
    expect(await Communication.count({ where: { body: 'Only once, please' } })).toBe(2);
  });

  it('a retry refused before anything is sent leaves the failed message free to retry', async () => {
    live.sim.queueResponse({ status: 429 });
    await failureOf(live.staff.chat.send.mutate({ clientId: amelia.id, body: 'Opted out in between' }));
    const failed = (await Communication.findOne({ where: { body: 'Opted out in between', status: 'failed' } }))!;
    await Client.sequelize!.query(`INSERT INTO number_opt_outs (digits, at, source) VALUES ('447700900123', now(), 'test')`);
    try {
      await expect(live.staff.chat.retry.mutate({ id: failed.id })).rejects.toBeInstanceOf(TRPCClientError);
    } finally {
      await Client.sequelize!.query(`DELETE FROM number_opt_outs WHERE digits = '447700900123'`);
    }
    expect((await Communication.findByPk(failed.id))?.metadata.resent_as).toBeUndefined();
    expect(await live.staff.chat.retry.mutate({ id: failed.id })).toMatchObject({ status: 'sent', metadata: { retry_of: failed.id } });
  });
});
