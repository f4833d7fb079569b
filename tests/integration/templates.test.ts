import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Communication } from '../../server/core/db/models/index';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { cloudPayload, postWebhook, sql, statusItem, textMessage } from '../support/webhook';
import { match } from '../support/matchers';

// Approved templates (server/messaging/README.md "Sending messages"): the catalogue, sending a template, the provider's error codes on a
// send answer and on a failed receipt, and opt-outs. Live mode against the provider simulator.

let live: TLiveSetup;
let amelia: { id: number };
const messages = () => live.sim.requests.filter((r) => r.path === '/messages');
const templateGets = () => live.sim.requests.filter((r) => r.path === '/v1/configs/templates');
const audit = (action: string) =>
  sql<{ user_id: number | null; detail: Record<string, unknown> }>(
    live.server.databaseUrl,
    'SELECT user_id, detail FROM audit_events WHERE action = $1 ORDER BY id',
    [action],
  );

beforeAll(async () => {
  live = await startLiveSetup();
  amelia = await live.staff.clients.create.mutate({ name: 'Amelia Hart', phone: '+44 7700 900123' });
  await live.director.chat.refreshTemplates.mutate();
});
afterAll(() => live?.stop());
beforeEach(() => {
  live.sim.requests.length = 0;
  live.sim.configure({ enforceWindow: false, apiMode: 'cloud', templateShape: 'waba', templatePageSize: 2 });
});

describe('the template catalogue', () => {
  it('is read from the provider, every page of its own shape, stored with the sync time; staff may not refresh it', async () => {
    const catalogue = await live.director.chat.refreshTemplates.mutate();
    expect(templateGets().map((r) => r.apiKey)).toEqual(['sim-key-0123456789', 'sim-key-0123456789', 'sim-key-0123456789']);
    expect(catalogue.templates.map((t) => [t.name, t.language, t.status, t.paramCount])).toEqual([
      ['appointment_reminder', 'en_GB', 'APPROVED', 3],
      ['document_attached', 'en_GB', 'APPROVED', 2],
      ['document_request', 'en_GB', 'APPROVED', 2],
      ['hello_world', 'en_US', 'APPROVED', 0],
      ['fee_update', 'en_GB', 'PENDING', 1],
    ]);
    expect(catalogue.syncedAt).toBeInstanceOf(Date);
    expect(await live.staff.chat.providerTemplates.query()).toEqual(catalogue);
    await expect(live.staff.chat.refreshTemplates.mutate()).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    expect((await audit('templates.refresh')).at(-1)).toMatchObject({ detail: { count: 5 } });
  });

  it("follows the cloud shape's paging.next on the provider's own host, never another", async () => {
    live.sim.configure({ templateShape: 'cloud', templatePageSize: 1 });
    const catalogue = await live.director.chat.refreshTemplates.mutate();
    expect(catalogue.templates).toHaveLength(5);
    expect(templateGets()).toHaveLength(5);
  });

  it("takes a template's new status from a message_template_status_update event", async () => {
    const event = (status: string) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'W',
          changes: [
            {
              field: 'message_template_status_update',
              value: { event: status, message_template_name: 'hello_world', message_template_language: 'en_US', reason: 'NONE' },
            },
          ],
        },
      ],
    });
    expect((await postWebhook(live.server.url, event('PAUSED'))).json).toEqual({ ok: true, received: 0, stored: 0 });
    const status = async () => (await live.staff.chat.providerTemplates.query()).templates.find((t) => t.name === 'hello_world')?.status;
    expect(await status()).toBe('PAUSED');
    await expect(
      live.staff.chat.sendTemplate.mutate({ clientId: amelia.id, name: 'hello_world', language: 'en_US', params: [] }),
    ).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
    await postWebhook(live.server.url, event('APPROVED'));
    expect(await status()).toBe('APPROVED');
  });
});

describe('sending a template', () => {
  it('sends the exact provider body, stores the text the client reads and the template, and takes receipts', async () => {
    const sent = await live.staff.chat.sendTemplate.mutate({
      clientId: amelia.id,
      name: 'appointment_reminder',
      language: 'en_GB',
      params: ['Amelia', 'Ashdown & Vale', 'Tuesday 10:00'],
    });
    expect(messages()[0]?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '447700900123',
      type: 'template',
      template: {
        name: 'appointment_reminder',
        language: { code: 'en_GB' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Amelia' },
              { type: 'text', text: 'Ashdown & Vale' },
              { type: 'text', text: 'Tuesday 10:00' },
            ],
          },
        ],
      },
    });
    expect(sent).toMatchObject({
      status: 'sent',
      body: 'Hello Amelia, this is a reminder of your appointment with Ashdown & Vale on Tuesday 10:00. Reply here to confirm or to rearrange.',
      metadata: { template: { name: 'appointment_reminder', language: 'en_GB', params: ['Amelia', 'Ashdown & Vale', 'Tuesday 10:00'] } },
    });
    await postWebhook(live.server.url, cloudPayload({ statuses: [statusItem(sent.metadata.chat_msg_id!, 'read')] }));
    expect((await Communication.findByPk(sent.id))?.status).toBe('read');
  });

  it('leaves components out for a template without parameters', async () => {
    await live.staff.chat.sendTemplate.mutate({ to: '+44 7700 900123', name: 'hello_world', language: 'en_US', params: [] });
    expect((messages()[0]?.body as { template: unknown }).template).toEqual({ name: 'hello_world', language: { code: 'en_US' } });
  });

  it.each([
    ['an unknown template', { name: 'no_such_template', language: 'en_GB', params: [] }, /There is no template "no_such_template"/],
    ['a template not approved', { name: 'fee_update', language: 'en_GB', params: ['Amelia'] }, /is pending at the provider, not approved/],
    ['the wrong number of values', { name: 'document_request', language: 'en_GB', params: ['Amelia'] }, /takes 2 values, not 1/],
    ['an empty value', { name: 'document_request', language: 'en_GB', params: ['Amelia', '  '] }, /Fill in field 2/],
    ['a known name in another language', { name: 'hello_world', language: 'fr', params: [] }, /There is no template "hello_world" in fr/],
  ])('refuses %s before any provider call', async (_label, choice, message) => {
    const before = await Communication.count();
    await expect(live.staff.chat.sendTemplate.mutate({ clientId: amelia.id, ...choice })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
      message: match.stringMatching(message),
    });
    expect(messages()).toHaveLength(0);
    expect(await Communication.count()).toBe(before);
  });

  it('Retry resends a failed template as a template', async () => {
    live.sim.queueResponse({ status: 429 });
    await expect(
      live.staff.chat.sendTemplate.mutate({ clientId: amelia.id, name: 'hello_world', language: 'en_US', params: [] }),
    ).rejects.toMatchObject({ data: { code: 'BAD_GATEWAY' } });
    const failed = await Communication.findOne({ where: { status: 'failed' }, order: [['id', 'DESC']] });
    const retried = await live.staff.chat.retry.mutate({ id: failed!.id });
    expect(retried).toMatchObject({ status: 'sent', metadata: { template: { name: 'hello_world' }, retry_of: failed!.id } });
    expect((messages().at(-1)?.body as { type: string }).type).toBe('template');
  });
});

describe("the provider's error codes", () => {
  const scripted = (shape: 'cloud' | 'onprem', code: number, words: string) =>
    shape === 'cloud'
      ? { error: { message: words, type: 'OAuthException', code, error_data: { details: words } } }
      : { errors: [{ code, title: words, details: words }] };

  it.each([
    ['cloud', 131047, /^More than 24 hours have passed since Amelia Hart last wrote: send an approved template\.$/],
    ['onprem', 470, /^More than 24 hours have passed since Amelia Hart last wrote: send an approved template\.$/],
    ['cloud', 132000, /number of values does not match the template/],
    ['cloud', 132001, /does not exist at the provider in that language/],
    ['cloud', 131026, /cannot receive chat messages/],
    ['cloud', 131056, /Too many messages have been sent to this number/],
    ['cloud', 999999, /^The provider says: odd thing$|^odd thing$/],
  ] as const)('on a send answer (%s %i): %s', async (shape, code, expected) => {
    live.sim.queueResponse({ status: 400, body: scripted(shape, code, 'odd thing') });
    const error = (await live.staff.chat.send.mutate({ clientId: amelia.id, body: `code ${code}` }).then(
      () => ({ message: 'sent' }),
      (e: unknown) => e,
    )) as { message: string };
    expect(error.message).toMatch(expected);
    const [row] = await sql<{ error: string }>(live.server.databaseUrl, 'SELECT error FROM communications WHERE body = $1', [
      `code ${code}`,
    ]);
    expect(row?.error).toMatch(expected);
  });

  it.each([
    [470, /^More than 24 hours have passed since Amelia Hart last wrote: send an approved template\.$/],
    [132000, /number of values does not match the template/],
    [132001, /does not exist at the provider in that language/],
    [131026, /cannot receive chat messages \(it may not use the app, or Amelia Hart has not accepted its terms\)/],
    [131056, /Too many messages have been sent to this number/],
    [131000, /^The provider could not deliver this message: odd thing \(provider error 131000\)$/],
  ])('on a failed receipt with code %i', async (code, expected) => {
    const id = `wamid.receipt-code-${code}`;
    const record = await Communication.create({
      type: 'chat',
      direction: 'outbound',
      status: 'sent',
      body: 'x',
      clientId: amelia.id,
      peerPhone: '447700900123',
      metadata: { chat_msg_id: id },
    });
    await postWebhook(
      live.server.url,
      cloudPayload({
        statuses: [{ ...statusItem(id, 'failed'), errors: [{ code, title: 'odd thing', error_data: { details: 'odd thing' } }] }],
      }),
    );
    expect((await Communication.findByPk(record.id))?.error).toMatch(expected);
  });

  it("on a failed receipt, naming the record's client", async () => {
    const record = await Communication.create({
      type: 'chat',
      direction: 'outbound',
      status: 'sent',
      body: 'late',
      clientId: amelia.id,
      peerPhone: '447700900123',
      metadata: { chat_msg_id: 'wamid.window-receipt' },
    });
    const failed = {
      ...statusItem('wamid.window-receipt', 'failed'),
      errors: [
        {
          code: 131047,
          title: 'Re-engagement message',
          error_data: { details: 'Message failed to send because more than 24 hours have passed.' },
        },
      ],
    };
    await postWebhook(live.server.url, cloudPayload({ statuses: [failed] }));
    expect((await Communication.findByPk(record.id))?.error).toBe(
      'More than 24 hours have passed since Amelia Hart last wrote: send an approved template.',
    );
  });

  it('meets the 24-hour rule as the provider applies it: free text to a cold number fails by receipt, a template is delivered', async () => {
    live.sim.configure({ enforceWindow: true, autoReceipts: true, receiptDelaysMs: [50, 100, 150] });
    const cold = await live.staff.clients.create.mutate({ name: 'Cold Client', phone: '+44 7700 900444' });
    const text = await live.staff.chat.send.mutate({ clientId: cold.id, body: 'free text, cold' });
    expect(text.status).toBe('sent');
    await expect
      .poll(async () => (await Communication.findByPk(text.id))?.error, { timeout: 5_000 })
      .toBe('More than 24 hours have passed since Cold Client last wrote: send an approved template.');
    const template = await live.staff.chat.sendTemplate.mutate({ clientId: cold.id, name: 'hello_world', language: 'en_US', params: [] });
    await expect.poll(async () => (await Communication.findByPk(template.id))?.status, { timeout: 5_000 }).toBe('read');
    live.sim.configure({ apiMode: 'onprem' });
    await expect(live.staff.chat.send.mutate({ clientId: cold.id, body: 'free text, on-premise' })).rejects.toMatchObject({
      message: 'More than 24 hours have passed since Cold Client last wrote: send an approved template.',
    });
    live.sim.configure({ autoReceipts: false });
    await live.sim.settle();
  });
});

describe('opt-outs', () => {
  const preference = (value: string) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'W',
        changes: [
          {
            field: 'user_preferences',
            value: {
              messaging_product: 'whatsapp',
              user_preferences: [{ wa_id: '447700900555', category: 'marketing_messages', value, timestamp: 1763700000 }],
            },
          },
        ],
      },
    ],
  });

  it('a stop event marks the client, sends are refused with no provider call, resume clears it', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Stop Event', phone: '+44 7700 900555' });
    await postWebhook(live.server.url, preference('stop'));
    expect(await live.staff.clients.get.query({ clientId: client.id })).toMatchObject({
      optedOutAt: match.any(Date),
      optOutSource: 'provider: stop',
    });
    await expect(live.staff.chat.send.mutate({ clientId: client.id, body: 'hello?' })).rejects.toMatchObject({
      data: { code: 'PRECONDITION_FAILED' },
      message: match.stringContaining('Stop Event asked not to receive chat messages'),
    });
    await expect(
      live.staff.chat.sendTemplate.mutate({ to: '+44 7700 900555', name: 'hello_world', language: 'en_US', params: [] }),
    ).rejects.toMatchObject({ data: { code: 'PRECONDITION_FAILED' } });
    expect(messages()).toHaveLength(0);
    await postWebhook(live.server.url, preference('resume'));
    expect((await live.staff.clients.get.query({ clientId: client.id })).optedOutAt).toBeNull();
    expect((await audit('client.opt_out')).length).toBeGreaterThan(0);
  });

  it('an inbound STOP marks the client (kept as a message too), START clears it; a director can clear it by hand, staff cannot', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Stop Text', phone: '+44 7700 900556' });
    await postWebhook(live.server.url, cloudPayload({ messages: [textMessage('wamid.stop-1', '447700900556', ' stop ')] }));
    expect(await live.staff.clients.get.query({ clientId: client.id })).toMatchObject({ optOutSource: 'message "STOP"' });
    await postWebhook(live.server.url, cloudPayload({ messages: [textMessage('wamid.start-1', '447700900556', 'Start')] }));
    expect((await live.staff.clients.get.query({ clientId: client.id })).optedOutAt).toBeNull();
    await postWebhook(live.server.url, cloudPayload({ messages: [textMessage('wamid.stop-2', '447700900556', 'UNSUBSCRIBE')] }));
    await expect(live.staff.clients.clearOptOut.mutate({ clientId: client.id })).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    expect((await live.director.clients.clearOptOut.mutate({ clientId: client.id })).optedOutAt).toBeNull();
    expect((await audit('client.opt_in')).at(-1)).toMatchObject({
      user_id: match.any(Number),
      detail: { source: 'cleared by a director' },
    });
    expect((await live.staff.inbox.thread.query({ clientId: client.id })).items.map((i) => i.body)).toEqual([
      ' stop ',
      'Start',
      'UNSUBSCRIBE',
    ]);
  });
});
