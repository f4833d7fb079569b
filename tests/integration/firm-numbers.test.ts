import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { migrateDatabase } from '../../server/core/db/migrate';
import { createSequelize } from '../../server/core/db/sequelize';
import { createLogger } from '../../server/core/logger';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { captureLogLines } from '../support/log-capture';
import { createEmptyTestDatabase, TEST_REQUEST_ROLE } from '../support/test-database';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sign, sql, statusItem, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// Several business numbers (server/numbers/README.md "Several numbers"): the app in live mode against
// the provider simulator serving two numbers, each with its own key and webhook secret.

const MAIN_KEY = 'numbers-main-key-0123456789';
const LEEDS_KEY = 'numbers-leeds-key-0123456789';
const LEEDS_SECRET = 'whsec-leeds-0123456789abcdef';
const MAIN = '442079460000'; // FIRM_PHONE's default
const LEEDS = '441134960222';
const AMELIA = '447700900123';
const BEA = '447700900456';

type TClient = ReturnType<typeof createHttpClient>['client'];

async function failureOf(promise: Promise<unknown>): Promise<TRPCClientError<never>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<never>;
}

const { lines, destination } = captureLogLines();
let sim: ProviderSimulator;
let server: TTestServer;
let director: TClient;
let staff: TClient;
let staffCookie: string;
let amelia: { id: number };
let bea: { id: number };
let leedsId: number;

const sends = () => sim.requests.filter((r) => r.method === 'POST' && r.path === '/messages');
const recordOf = async (chatMsgId: string) =>
  (
    await sql(
      server.databaseUrl,
      `SELECT id, client_id AS "clientId", firm_number_id AS "firmNumberId" FROM communications WHERE metadata->>'chat_msg_id' = $1`,
      [chatMsgId],
    )
  )[0] as { id: number; clientId: number | null; firmNumberId: number } | undefined;

beforeAll(async () => {
  sim = await startProviderSimulator({
    apiKey: MAIN_KEY,
    webhookSecret: WEBHOOK_SECRET,
    autoReceipts: false,
    numbers: [
      {
        apiKey: LEEDS_KEY,
        digits: LEEDS,
        phoneNumberId: 'LEEDS-ID',
        webhookSecret: LEEDS_SECRET,
        templates: [
          { name: 'leeds_welcome', language: 'en_GB', status: 'APPROVED', category: 'UTILITY', body: 'Welcome to the Leeds office.' },
        ],
      },
    ],
  });
  server = await startTestServer(
    {
      MESSAGING_API_KEY: MAIN_KEY,
      MESSAGING_PROVIDER_URL: sim.url,
      MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SESSION_SECRET: 'numbers-session-secret-0123456789abcdef',
    },
    createLogger('info', destination),
  );
  sim.configure({ webhookUrl: `${server.url}/api/webhooks/chat` });
  await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' });
  await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
  director = createHttpClient(server.url).client;
  await director.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  const signedIn = createHttpClient(server.url);
  staff = signedIn.client;
  await staff.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  staffCookie = [...signedIn.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  amelia = await director.clients.create.mutate({ name: 'Amelia Hart', phone: `+${AMELIA}` });
  bea = await director.clients.create.mutate({ name: 'Bea Brook', phone: `+${BEA}` });
  const leeds = await director.numbers.add.mutate({
    phone: '+44 113 496 0222',
    label: 'Leeds office',
    apiKey: LEEDS_KEY,
    webhookSecret: LEEDS_SECRET,
    phoneNumberId: 'LEEDS-ID',
  });
  leedsId = leeds.id;
});
afterAll(async () => {
  await sim?.settle();
  await sim?.close();
  await server?.stop();
});
beforeEach(() => {
  sim.requests.length = 0;
  sim.configure({ enforceWindow: false, apiMode: 'onprem', autoReceipts: false });
});

describe('managing numbers', () => {
  it('lists the configured number first and the added one, never a key or secret; staff read them but may not add', async () => {
    const listed = await staff.numbers.list.query();
    expect(listed).toEqual([
      {
        id: 1,
        phone: MAIN,
        label: 'Main number',
        phoneNumberId: null,
        active: true,
        configured: true,
        hasOwnKey: false,
        hasOwnWebhookSecret: false,
      },
      {
        id: leedsId,
        phone: LEEDS,
        label: 'Leeds office',
        phoneNumberId: 'LEEDS-ID',
        active: true,
        configured: false,
        hasOwnKey: true,
        hasOwnWebhookSecret: true,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(LEEDS_KEY);
    // Kept sealed: the database holds neither the key nor the secret as written.
    const [row] = await sql(server.databaseUrl, `SELECT provider_key_sealed, webhook_secret_sealed FROM firm_numbers WHERE id = $1`, [
      leedsId,
    ]);
    expect(JSON.stringify(row)).not.toContain(LEEDS_KEY);
    expect(JSON.stringify(row)).not.toContain(LEEDS_SECRET);
    const refused = await failureOf(
      staff.numbers.add.mutate({ phone: '+44 161 496 0333', label: 'Manchester', apiKey: 'another-key-0123' }),
    );
    expect(refused.data).toMatchObject({ code: 'FORBIDDEN' });
    const twice = await failureOf(director.numbers.add.mutate({ phone: `+${LEEDS}`, label: 'Again', apiKey: 'another-key-0123' }));
    expect(twice.message).toBe('+44 113 496 0222 is already the firm’s number “Leeds office”.');
    // The trail names the number, never its key.
    const trail = await sql(server.databaseUrl, `SELECT action, detail FROM audit_events WHERE action LIKE 'number.%' ORDER BY id`);
    expect(trail).toEqual([{ action: 'number.add', detail: { numberId: leedsId, phone: LEEDS, label: 'Leeds office' } }]);
  });

  it('refuses a label another number has, a key another number uses, and a label that could read as another', async () => {
    const sameLabel = await failureOf(
      director.numbers.add.mutate({ phone: '+44 161 496 0444', label: 'leeds OFFICE', apiKey: 'fresh-key-0123456' }),
    );
    expect(sameLabel.message).toBe('Another of the firm’s numbers is called “leeds OFFICE”: give this one another label.');
    const mainKey = await failureOf(director.numbers.add.mutate({ phone: '+44 161 496 0444', label: 'Bolton', apiKey: MAIN_KEY }));
    expect(mainKey.message).toBe('That key is the main number’s: each number has its own key from the provider.');
    const leedsKey = await failureOf(director.numbers.add.mutate({ phone: '+44 161 496 0444', label: 'Bolton', apiKey: LEEDS_KEY }));
    expect(leedsKey.message).toBe('That key is “Leeds office”’s: each number has its own key from the provider.');
    const override = await failureOf(
      director.numbers.add.mutate({ phone: '+44 161 496 0444', label: 'Bolton\u202E', apiKey: 'fresh-key-0123456' }),
    );
    expect(override.data).toMatchObject({ code: 'BAD_REQUEST' });
    const lineBreak = await failureOf(
      director.numbers.add.mutate({ phone: '+44 161 496 0444', label: 'Bolton', apiKey: 'fresh-key\r\nX: y' }),
    );
    expect(lineBreak.data).toMatchObject({ code: 'BAD_REQUEST' });
    expect((await director.numbers.list.query()).map((n) => n.label)).toEqual(['Main number', 'Leeds office']);
  });

  it('checks each number’s connection with its own key', async () => {
    expect(await director.settings.checkConnection.mutate({ numberId: leedsId })).toMatchObject({ status: 'Live' });
    expect(sim.requests.map((r) => r.apiKey)).toEqual([LEEDS_KEY]);
    const missing = await failureOf(director.settings.checkConnection.mutate({ numberId: 9999 }));
    expect(missing.data).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('one conversation across numbers', () => {
  it('files messages to either number on the client’s one thread, each with its number, and filters the inbox by number', async () => {
    const toMain = await sim.sendInbound(AMELIA, 'Hello main office');
    const toLeeds = await sim.sendInbound(AMELIA, 'Hello Leeds', undefined, LEEDS);
    expect(await recordOf(toMain.id)).toMatchObject({ clientId: amelia.id, firmNumberId: 1 });
    expect(await recordOf(toLeeds.id)).toMatchObject({ clientId: amelia.id, firmNumberId: leedsId });
    await sim.sendInbound(BEA, 'Only the main office');
    const thread = await staff.inbox.thread.query({ clientId: amelia.id });
    expect(thread.items.filter((i) => i.direction === 'inbound').map((i) => [i.body, i.firmNumberId])).toEqual([
      ['Hello main office', 1],
      ['Hello Leeds', leedsId],
    ]);
    const throughLeeds = await staff.inbox.threads.query({ firmNumberId: leedsId });
    expect(throughLeeds.threads.map((t) => t.clientId)).toEqual([amelia.id]);
    const all = await staff.inbox.threads.query({});
    expect(all.threads.map((t) => t.clientId).sort()).toEqual([amelia.id, bea.id].sort());
  });

  it('answers from the number the client last wrote to, with that number’s key, unless the person picks another', async () => {
    await sim.sendInbound(AMELIA, 'Writing to Leeds again', undefined, LEEDS);
    const reply = await staff.chat.send.mutate({ clientId: amelia.id, body: 'Leeds here' });
    expect(reply.firmNumberId).toBe(leedsId);
    const picked = await staff.chat.send.mutate({ clientId: amelia.id, body: 'Main office here', fromNumberId: 1 });
    expect(picked.firmNumberId).toBe(1);
    expect(sends().map((r) => [r.apiKey, (r.body as { text?: { body?: string } }).text?.body])).toEqual([
      [LEEDS_KEY, 'Leeds here'],
      [MAIN_KEY, 'Main office here'],
    ]);
    const unknown = await failureOf(staff.chat.send.mutate({ clientId: amelia.id, body: 'Nowhere', fromNumberId: 9999 }));
    expect(unknown.data).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('counts the 24-hour window per client number and firm number: Leeds closed while the main number is open', async () => {
    sim.configure({ enforceWindow: true });
    await sim.sendInbound(BEA, 'Hello, main office only');
    const fromLeeds = await failureOf(staff.chat.send.mutate({ clientId: bea.id, body: 'From Leeds', fromNumberId: leedsId }));
    expect(fromLeeds.message).toBe('More than 24 hours have passed since Bea Brook last wrote: send an approved template.');
    const fromMain = await staff.chat.send.mutate({ clientId: bea.id, body: 'From the main office', fromNumberId: 1 });
    expect(fromMain.status).toBe('sent');
    // A scheduled text keeps the number it was scheduled from, and waits on that pair's window when due.
    const sendAt = new Date(Date.now() + 1_000);
    const fromLeedsLater = await staff.chat.schedule.mutate({ clientId: bea.id, body: 'Later from Leeds', fromNumberId: leedsId, sendAt });
    const fromMainLater = await staff.chat.schedule.mutate({ clientId: bea.id, body: 'Later from the main office', sendAt });
    const stateOf = async (id: number) =>
      (await sql(server.databaseUrl, `SELECT state, firm_number_id AS "firmNumberId" FROM scheduled_sends WHERE id = $1`, [id]))[0];
    await expect.poll(() => stateOf(fromLeedsLater.id), { timeout: 15_000 }).toEqual({ state: 'not_sent', firmNumberId: leedsId });
    await expect.poll(() => stateOf(fromMainLater.id), { timeout: 15_000 }).toEqual({ state: 'sent', firmNumberId: 1 });
    expect(
      sends()
        .filter((r) => JSON.stringify(r.body).includes('Later'))
        .map((r) => r.apiKey),
    ).toEqual([MAIN_KEY]);
  });

  it('names in the export the number each message went through', async () => {
    const res = await fetch(`${server.url}/api/export/client/${amelia.id}.json`, { headers: { cookie: staffCookie } });
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as { messages: { body: string; firmNumber: unknown }[] };
    const byBody = new Map(messages.map((m) => [m.body, m.firmNumber]));
    expect(byBody.get('Hello main office')).toEqual({ id: 1, phone: MAIN, label: 'Main number' });
    expect(byBody.get('Hello Leeds')).toEqual({ id: leedsId, phone: LEEDS, label: 'Leeds office' });
    expect(byBody.get('Leeds here')).toEqual({ id: leedsId, phone: LEEDS, label: 'Leeds office' });
  });

  it('offers and checks each number’s own approved templates', async () => {
    await director.chat.refreshTemplates.mutate();
    const leedsTemplates = await staff.chat.providerTemplates.query({ firmNumberId: leedsId });
    expect(leedsTemplates.templates.map((t) => t.name)).toEqual(['leeds_welcome']);
    expect((await staff.chat.providerTemplates.query()).templates.map((t) => t.name)).not.toContain('leeds_welcome');
    const wrongNumber = await failureOf(
      staff.chat.sendTemplate.mutate({ clientId: amelia.id, name: 'leeds_welcome', language: 'en_GB', params: [], fromNumberId: 1 }),
    );
    expect(wrongNumber.message).toBe('There is no template "leeds_welcome" in en_GB: refresh the templates or choose another.');
    const sent = await staff.chat.sendTemplate.mutate({
      clientId: amelia.id,
      name: 'leeds_welcome',
      language: 'en_GB',
      params: [],
      fromNumberId: leedsId,
    });
    expect(sent).toMatchObject({ firmNumberId: leedsId, body: 'Welcome to the Leeds office.' });
  });

  it('reacts to and marks read a message with the key of the number it came to', async () => {
    const { id } = await sim.sendInbound(AMELIA, 'React to me, Leeds', undefined, LEEDS);
    const record = (await recordOf(id))!;
    await staff.chat.react.mutate({ communicationId: record.id, emoji: '👍' });
    expect(sends().map((r) => [r.apiKey, (r.body as { type?: string }).type])).toEqual([[LEEDS_KEY, 'reaction']]);
  });
});

describe('the one webhook', () => {
  const leedsPayload = (id: string, body: string) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '+44 113 496 0222', phone_number_id: 'LEEDS-ID' },
              messages: [textMessage(id, AMELIA, body)],
            },
          },
        ],
      },
    ],
  });

  it('acknowledges and counts an item for a number the firm does not have, stores nothing, and logs no body', async () => {
    const payload = cloudPayload({
      metadata: { display_phone_number: '15550009999', phone_number_id: 'FOREIGN' },
      messages: [textMessage('wamid.foreign-1', AMELIA, 'secret words for another firm')],
    });
    const answer = await postWebhook(server.url, payload);
    expect(answer).toEqual({ status: 200, json: { ok: true, received: 1, stored: 0, ignored: 1 } });
    expect(await recordOf('wamid.foreign-1')).toBeUndefined();
    const warned = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter(
        (l) =>
          l.msg === 'webhook items were ignored: for a number the firm does not have (or has deactivated), or without that number’s secret',
      );
    expect(warned).toEqual([expect.objectContaining({ ignored: 1, numbers: ['15550009999'] })]);
    expect(lines.join('\n')).not.toContain('secret words');
  });

  it('takes a number’s items only with that number’s secret', async () => {
    // Signed with the firm's secret: Leeds has its own, so this is not Leeds's delivery.
    const forged = await postWebhook(server.url, leedsPayload('wamid.leeds-forged', 'not from Leeds'));
    expect(forged.json).toMatchObject({ stored: 0, ignored: 1 });
    const raw = JSON.stringify(leedsPayload('wamid.leeds-signed', 'from Leeds'));
    const signed = await postWebhook(server.url, raw, { headers: { 'x-service-signature': `sha256=${sign(raw, LEEDS_SECRET)}` } });
    expect(signed.json).toEqual({ ok: true, received: 1, stored: 1 });
    expect(await recordOf('wamid.leeds-signed')).toMatchObject({ firmNumberId: leedsId });
    const unsigned = await postWebhook(server.url, raw, {
      headers: { 'x-service-signature': `sha256=${sign(raw, 'a-secret-nobody-has-0123')}` },
    });
    expect(unsigned.status).toBe(401);
  });

  it('lets no number’s secret change another number’s messages: receipts, edits and deletions', async () => {
    const { id } = await sim.sendInbound(AMELIA, 'Only for the main office');
    const sent = await staff.chat.send.mutate({ clientId: amelia.id, body: 'Main office answers', fromNumberId: 1 });
    const sentId = sent.metadata.chat_msg_id!;
    const asLeeds = (value: Record<string, unknown>) => {
      const raw = JSON.stringify(cloudPayload({ metadata: { display_phone_number: LEEDS, phone_number_id: 'LEEDS-ID' }, ...value }));
      return postWebhook(server.url, raw, { headers: { 'x-service-signature': `sha256=${sign(raw, LEEDS_SECRET)}` } });
    };
    await asLeeds({ statuses: [{ ...statusItem(sentId, 'failed'), recipient_id: AMELIA, errors: [{ code: 131026, title: 'forged' }] }] });
    await asLeeds({
      messages: [
        {
          from: AMELIA,
          id: 'wamid.forged-edit',
          timestamp: '1763700200',
          type: 'edit',
          edit: { original_message_id: id, message: { type: 'text', text: { body: 'FORGED' } } },
        },
      ],
    });
    await asLeeds({
      messages: [{ from: AMELIA, id: 'wamid.forged-revoke', timestamp: '1763700300', type: 'revoke', revoke: { original_message_id: id } }],
    });
    const rows = await sql(
      server.databaseUrl,
      `SELECT body, status, metadata ? 'revoked_at' AS revoked FROM communications WHERE metadata->>'chat_msg_id' = ANY($1) ORDER BY id`,
      [[id, sentId]],
    );
    expect(rows).toEqual([
      { body: 'Only for the main office', status: null, revoked: false },
      { body: 'Main office answers', status: 'sent', revoked: false },
    ]);
  });

  it('keeps the webhook open for every other number when one number’s sealed secret cannot be opened', async () => {
    const [before] = await sql(server.databaseUrl, `SELECT webhook_secret_sealed AS sealed FROM firm_numbers WHERE id = $1`, [leedsId]);
    const sealed = (before as { sealed: string }).sealed;
    await sql(server.databaseUrl, `UPDATE firm_numbers SET webhook_secret_sealed = $2 WHERE id = $1`, [
      leedsId,
      `${sealed.slice(0, -2)}AA`,
    ]);
    try {
      const answer = await postWebhook(
        server.url,
        cloudPayload({ messages: [textMessage('wamid.still-open-1', AMELIA, 'still reaching the main office')] }),
      );
      expect(answer).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
    } finally {
      await sql(server.databaseUrl, `UPDATE firm_numbers SET webhook_secret_sealed = $2 WHERE id = $1`, [leedsId, sealed]);
    }
  });

  /** Posts a new message to the firm's number `digits`, signed with the firm's secret, each time it is called: the answer. */
  const deliveriesTo = (digits: string) => {
    let n = 0;
    return async () =>
      (
        await postWebhook(
          server.url,
          cloudPayload({
            metadata: { display_phone_number: digits },
            messages: [textMessage(`wamid.to-${digits}-${++n}`, AMELIA, 'hello')],
          }),
        )
      ).json;
  };

  it('reads the firm’s numbers once, not for every delivery: while the app cannot read them, the kept ones route', async () => {
    const deliver = (id: string) => postWebhook(server.url, cloudPayload({ messages: [textMessage(id, AMELIA, `kept ${id}`)] }));
    expect((await deliver('wamid.kept-0')).status).toBe(200);
    await sql(server.databaseUrl, `REVOKE SELECT ON firm_numbers FROM ${TEST_REQUEST_ROLE.user}`);
    try {
      expect(await deliver('wamid.kept-1')).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
    } finally {
      await sql(server.databaseUrl, `GRANT SELECT ON firm_numbers TO ${TEST_REQUEST_ROLE.user}`);
    }
  });

  it('routes a number added a moment ago before its change is heard: an item the kept numbers would ignore is decided on a fresh read', async () => {
    // The numbers kept (a delivery read them), then one added by hand with its announcement held back: only a fresh read knows it.
    expect(
      (await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.before-liverpool', AMELIA, 'before')] }))).status,
    ).toBe(200);
    await sql(
      server.databaseUrl,
      `ALTER TABLE firm_numbers DISABLE TRIGGER firm_numbers_announced;
       INSERT INTO firm_numbers (digits, label) VALUES ('441514960444', 'Liverpool');
       ALTER TABLE firm_numbers ENABLE TRIGGER firm_numbers_announced`,
    );
    const answer = await postWebhook(
      server.url,
      cloudPayload({
        metadata: { display_phone_number: '441514960444' },
        messages: [textMessage('wamid.liverpool-1', AMELIA, 'hello Liverpool')],
      }),
    );
    expect(answer).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
  });

  it('hears a number deactivated by hand, on any instance: its deliveries are ignored once the database announces it', async () => {
    await sql(server.databaseUrl, `INSERT INTO firm_numbers (digits, label) VALUES ('441914960666', 'Newcastle')`);
    const deliver = deliveriesTo('441914960666');
    expect(await deliver()).toMatchObject({ stored: 1 });
    await sql(server.databaseUrl, `UPDATE firm_numbers SET active = false WHERE digits = '441914960666'`);
    await expect.poll(deliver, { timeout: 10_000 }).toMatchObject({ stored: 0, ignored: 1 });
  });

  it('forgets the kept numbers as its own change commits: a number deactivated here is ignored at once', async () => {
    const bristol = await director.numbers.add.mutate({ phone: '+44 117 496 0777', label: 'Bristol', apiKey: 'bristol-key-0123456' });
    const deliver = deliveriesTo('441174960777');
    expect(await deliver()).toMatchObject({ stored: 1 });
    // The database's announcement held back: only the procedure's own word can make the next delivery see it.
    await sql(server.databaseUrl, `ALTER TABLE firm_numbers DISABLE TRIGGER firm_numbers_announced`);
    try {
      await director.numbers.deactivate.mutate({ id: bristol.id });
      expect(await deliver()).toMatchObject({ stored: 0, ignored: 1 });
    } finally {
      await sql(server.databaseUrl, `ALTER TABLE firm_numbers ENABLE TRIGGER firm_numbers_announced`);
    }
  });

  it('ignores what is posted for a deactivated number, and sends nothing from it; the configured number cannot be deactivated', async () => {
    const manchester = await director.numbers.add.mutate({ phone: '+44 161 496 0333', label: 'Manchester', apiKey: 'manchester-key-0123' });
    await director.numbers.deactivate.mutate({ id: manchester.id });
    const refused = await failureOf(staff.chat.send.mutate({ clientId: amelia.id, body: 'From Manchester', fromNumberId: manchester.id }));
    expect(refused.message).toBe('“Manchester” was deactivated: send from another of the firm’s numbers.');
    // A send scheduled from it before it was deactivated is not sent, with the reason.
    const bolton = await director.numbers.add.mutate({ phone: '+44 120 496 0555', label: 'Bolton', apiKey: 'bolton-key-0123456' });
    const later = await staff.chat.schedule.mutate({
      clientId: amelia.id,
      body: 'From Bolton, later',
      fromNumberId: bolton.id,
      sendAt: new Date(Date.now() + 1_000),
    });
    await director.numbers.deactivate.mutate({ id: bolton.id });
    await expect
      .poll(async () => (await sql(server.databaseUrl, `SELECT state, reason FROM scheduled_sends WHERE id = $1`, [later.id]))[0], {
        timeout: 15_000,
      })
      .toEqual({ state: 'not_sent', reason: '“Bolton” was deactivated: send from another of the firm’s numbers.' });
    const main = await failureOf(director.numbers.deactivate.mutate({ id: 1 }));
    expect(main.data).toMatchObject({ code: 'PRECONDITION_FAILED' });
    const answer = await postWebhook(
      server.url,
      cloudPayload({ metadata: { display_phone_number: '441614960333' }, messages: [textMessage('wamid.manchester-1', AMELIA, 'hello')] }),
    );
    expect(answer.json).toMatchObject({ stored: 0, ignored: 1 });
  });
});

describe('upgrading a one-number database', () => {
  it('keeps every record, ties each to number 1, and rewrites none (versions unchanged)', async () => {
    const fresh = await createEmptyTestDatabase();
    const sequelize = createSequelize(fresh.url, createLogger('silent'));
    try {
      await migrateDatabase(sequelize, fresh.url, { to: '0039-unread-kept-counts' });
      await sql(
        fresh.url,
        `INSERT INTO clients (name) VALUES ('Kept Client');
         INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata)
         VALUES ('chat', 'inbound', NULL, 'before the upgrade', 1, '447700900123', '{"chat_msg_id": "wamid.old-1"}'),
                ('chat', 'outbound', 'delivered', 'our answer', 1, '447700900123', '{"chat_msg_id": "wamid.old-2"}'),
                ('note', NULL, NULL, 'a call note', 1, NULL, '{}')`,
      );
      const before = await sql(fresh.url, `SELECT id, body, version, updated_at FROM communications ORDER BY id`);
      // 0040 and every migration after it: none rewrites a record.
      expect((await migrateDatabase(sequelize, fresh.url))[0]).toBe('0040-firm-numbers');
      const after = await sql(
        fresh.url,
        `SELECT id, body, version, updated_at, firm_number_id AS "firmNumberId" FROM communications ORDER BY id`,
      );
      expect(after).toEqual(before.map((row) => ({ ...row, firmNumberId: 1 })));
      expect(await sql(fresh.url, `SELECT id, label, active FROM firm_numbers`)).toEqual([{ id: 1, label: 'Main number', active: true }]);
    } finally {
      await sequelize.close();
      await fresh.drop();
    }
  });
});
