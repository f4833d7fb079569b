import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSiteUrlProblems } from '../../server/webhook/webhook-setup';
import { startAppProcess, type TAppProcess } from '../support/app-process';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { sql } from '../support/sql';
import { cloudPayload, postWebhook, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// Settings tells a director what the provider needs and whether its
// deliveries get in (kept in PostgreSQL, so every instance says the same); test sends are marked.
let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());

const db = () => live.server.databaseUrl;
const status = () => live.director.settings.webhookStatus.query();

describe('settings.webhookStatus', () => {
  it('is for directors only: staff get FORBIDDEN from the server', async () => {
    await expect(live.staff.settings.webhookStatus.query()).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
  });

  it('names the header and the signature option, says what is configured, and never gives a secret', async () => {
    const s = await status();
    expect(s).toEqual({
      webhookUrl: 'https://chat.firm.example/api/webhooks/chat',
      secretHeader: 'x-service-webhook-secret',
      signatureHeaders: ['x-service-signature', 'x-hub-signature-256'],
      secretConfigured: true,
      verifyTokenConfigured: false,
      unauthenticatedAllowed: false,
      siteUrlWarnings: [],
      lastDelivery: null,
      lastAcceptedAt: null,
    });
    expect(JSON.stringify(s)).not.toContain(WEBHOOK_SECRET);
  });

  it('a refused delivery shows as the last one, refused, with nothing accepted yet', async () => {
    const before = Date.now();
    expect((await postWebhook(live.server.url, cloudPayload({}), { headers: { 'x-service-webhook-secret': 'wrong-secret' } })).status).toBe(
      401,
    );
    await expect.poll(async () => (await status()).lastDelivery?.outcome).toBe('unauthorized');
    const s = await status();
    expect(s.lastDelivery).toMatchObject({ httpStatus: 401 });
    expect(s.lastDelivery!.at.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(s.lastAcceptedAt).toBeNull();
  });

  it('an accepted delivery (secret in the header) becomes the last one, accepted; the refused one stays counted', async () => {
    const body = cloudPayload({
      messages: [textMessage('wamid.status-1', '447700900777', 'A body that must not be stored in the delivery log')],
    });
    const answer = await postWebhook(live.server.url, body, { headers: { 'x-service-webhook-secret': WEBHOOK_SECRET } });
    expect(answer).toMatchObject({ status: 200, json: { stored: 1 } });
    await expect.poll(async () => (await status()).lastDelivery?.outcome).toBe('accepted');
    const s = await status();
    expect(s.lastDelivery).toMatchObject({ httpStatus: 200 });
    expect(s.lastAcceptedAt).toEqual(s.lastDelivery!.at);
    const rows = await sql(db(), 'SELECT outcome, last_status, count::int AS count FROM webhook_deliveries ORDER BY outcome');
    expect(rows).toEqual([
      { outcome: 'accepted', last_status: 200, count: 1 },
      { outcome: 'unauthorized', last_status: 401, count: 1 },
    ]);
    // Times, statuses and counts only: no column could hold a body, a header or a secret.
    const columns = await sql<{ column_name: string }>(
      db(),
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'webhook_deliveries' ORDER BY column_name",
    );
    expect(columns.map((c) => c.column_name)).toEqual(['count', 'last_at', 'last_status', 'outcome']);
  });

  it('a signed body that is not JSON is the last delivery, refused as unreadable; the last accepted time stays', async () => {
    const accepted = (await status()).lastAcceptedAt;
    expect((await postWebhook(live.server.url, 'not json')).status).toBe(400);
    await expect.poll(async () => (await status()).lastDelivery?.outcome).toBe('rejected');
    expect((await status()).lastAcceptedAt).toEqual(accepted);
  });

  it('a burst of forged deliveries is counted in full, with no write per request held up', async () => {
    const before = (
      await sql<{ count: number }>(db(), "SELECT count::int AS count FROM webhook_deliveries WHERE outcome = 'unauthorized'")
    )[0]!.count;
    const answers = await Promise.all(Array.from({ length: 40 }, () => postWebhook(live.server.url, '{}', { unsigned: true })));
    expect(answers.every((a) => a.status === 401)).toBe(true);
    await expect
      .poll(
        async () =>
          (await sql<{ count: number }>(db(), "SELECT count::int AS count FROM webhook_deliveries WHERE outcome = 'unauthorized'"))[0]!
            .count,
      )
      .toBe(before + 40);
  });

  describe('another instance on the same database', () => {
    let other: TAppProcess;
    beforeAll(async () => {
      other = await startAppProcess({
        env: { DATABASE_URL: db(), MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET, SESSION_SECRET: 'test-session-secret-0123456789abcdef' },
      });
    }, 180_000);
    afterAll(() => other?.stop());

    it('a delivery it accepts is the last delivery this instance reports', async () => {
      const body = cloudPayload({ messages: [textMessage('wamid.status-other', '447700900778', 'Through the other instance')] });
      expect((await postWebhook(other.url, body)).status).toBe(200);
      await expect.poll(async () => (await status()).lastDelivery?.outcome, { timeout: 5_000 }).toBe('accepted');
      const [row] = await sql<{ count: number }>(db(), "SELECT count::int AS count FROM webhook_deliveries WHERE outcome = 'accepted'");
      expect(row!.count).toBe(2);
    });
  });
});

describe('when the database refuses the delivery log’s writes for a while', () => {
  it('the outcomes noted meanwhile are kept and written once it takes them again: counts, last delivery and last accepted time come out right', async () => {
    type TRow = { outcome: string; count: number; last_status: number };
    const rowsOf = () => sql<TRow>(db(), 'SELECT outcome, count::int AS count, last_status FROM webhook_deliveries ORDER BY outcome');
    const countOf = (rows: TRow[], outcome: string) => rows.find((r) => r.outcome === outcome)?.count ?? 0;
    const before = await rowsOf();
    // Every write to the table fails (as a statement timeout behind a lock would); a sequence,
    // which a rollback does not undo, counts the refused attempts.
    await sql(db(), 'CREATE SEQUENCE refused_delivery_writes');
    await sql(
      db(),
      // SECURITY DEFINER: the count is the owner's sequence, which the request role may not use.
      "CREATE FUNCTION refuse_delivery_write() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$ BEGIN PERFORM nextval('refused_delivery_writes'); RAISE EXCEPTION 'refused for the test'; END $$",
    );
    await sql(
      db(),
      'CREATE TRIGGER refuse_delivery_write BEFORE INSERT OR UPDATE ON webhook_deliveries FOR EACH STATEMENT EXECUTE FUNCTION refuse_delivery_write()',
    );
    let acceptedFrom: number;
    try {
      for (let i = 0; i < 3; i++) expect((await postWebhook(live.server.url, '{}', { unsigned: true })).status).toBe(401);
      expect((await postWebhook(live.server.url, 'not json')).status).toBe(400);
      acceptedFrom = Date.now();
      const body = cloudPayload({
        messages: [textMessage('wamid.status-refused-log', '447700900779', 'Stored while the delivery log is refused')],
      });
      expect((await postWebhook(live.server.url, body)).status).toBe(200);
      await expect
        .poll(
          async () =>
            (
              await sql<{ n: number }>(db(), 'SELECT CASE WHEN is_called THEN last_value ELSE 0 END::int AS n FROM refused_delivery_writes')
            )[0]!.n,
        )
        .toBeGreaterThan(0);
      // Every outcome is noted and its first write refused before the table takes writes again.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await rowsOf()).toEqual(before);
    } finally {
      await sql(db(), 'DROP TRIGGER refuse_delivery_write ON webhook_deliveries');
      await sql(db(), 'DROP FUNCTION refuse_delivery_write()');
      await sql(db(), 'DROP SEQUENCE refused_delivery_writes');
    }
    await expect.poll(async () => countOf(await rowsOf(), 'accepted'), { timeout: 10_000 }).toBe(countOf(before, 'accepted') + 1);
    const after = await rowsOf();
    expect(countOf(after, 'unauthorized')).toBe(countOf(before, 'unauthorized') + 3);
    expect(countOf(after, 'rejected')).toBe(countOf(before, 'rejected') + 1);
    const s = await status();
    expect(s.lastDelivery).toMatchObject({ outcome: 'accepted', httpStatus: 200 });
    expect(s.lastAcceptedAt!.getTime()).toBeGreaterThanOrEqual(acceptedFrom! - 1_000);
    expect(s.lastAcceptedAt).toEqual(s.lastDelivery!.at);
  });
});

describe('site URL warnings', () => {
  it.each([
    ['http://localhost:3000', [/"localhost" is this computer/, /starts with http:\/\//]],
    ['https://app.localhost', [/"localhost" is this computer/]],
    ['http://127.0.0.1:3000', [/127\.0\.0\.1 is a private or loopback address/, /https:\/\//]],
    ['https://10.1.2.3', [/10\.1\.2\.3 is a private/]],
    ['https://172.20.0.5', [/172\.20\.0\.5 is a private/]],
    ['https://192.168.1.20:8443', [/192\.168\.1\.20 is a private/]],
    ['https://169.254.10.1', [/private/]],
    ['https://100.64.0.1', [/private/]],
    ['https://[::1]', [/::1 is a private/]],
    ['https://[fd12:3456::1]', [/private/]],
    ['https://[::ffff:192.168.0.1]', [/private/]],
    ['https://fileserver', [/"fileserver" is a local network name/]],
    ['https://chat.office.local', [/local network name/]],
    ['http://chat.firm.example', [/starts with http:\/\//]],
  ])('%s is flagged', (url, expected) => {
    const problems = describeSiteUrlProblems(url);
    expect(problems).toHaveLength(expected.length);
    expected.forEach((pattern, i) => expect(problems[i]).toMatch(pattern));
  });

  it.each(['https://chat.firm.example', 'https://203.0.113.10', 'https://172.32.0.1', 'https://[2001:db8::1]'])(
    '%s is not flagged',
    (url) => {
      expect(describeSiteUrlProblems(url)).toEqual([]);
    },
  );
});

describe('a test send', () => {
  it('to a client’s number lands on their file marked as a test; an ordinary send is not marked', async () => {
    const client = await live.director.clients.create.mutate({ name: 'Tess Tester', phone: '+44 7700 900321' });
    const test = await live.staff.settings.sendTest.mutate({ to: '07700 900321', body: 'Settings test to a client' });
    expect(test).toMatchObject({ clientId: client.id, metadata: { test: true } });
    const ordinary = await live.staff.chat.send.mutate({ clientId: client.id, body: 'An ordinary message' });
    expect(ordinary.metadata.test).toBeUndefined();

    const { items } = await live.staff.timeline.client.query({ clientId: client.id });
    expect(items.find((i) => i.id === test.id)?.metadata.test).toBe(true);
    expect(await sql(db(), "SELECT metadata->'test' AS test FROM communications WHERE id = $1", [test.id])).toEqual([{ test: true }]);
  });

  it('a test template to a number no client has is marked too', async () => {
    const test = await live.staff.settings.sendTest.mutate({ to: '+44 7700 900000', name: 'hello_world', language: 'en_US', params: [] });
    expect(test).toMatchObject({ clientId: null, peerPhone: '447700900000', metadata: { test: true, template: { name: 'hello_world' } } });
  });
});
