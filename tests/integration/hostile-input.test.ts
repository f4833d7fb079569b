import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Communication } from '../../server/core/db/models/index';
import { pruneExpiredRows } from '../../server/maintenance/prune-expired';
import { SESSION_CHECK_EVERY_MS, setSessionCheckInterval } from '../../server/auth/session-watch';
import { createUser } from '../../server/auth/users';
import { MAX_KEPT_PER_DELIVERY } from '../../server/messaging/receipts';
import { MAX_ITEMS_PER_DELIVERY, MAX_STORED_BODY } from '../../server/webhook/parse-payload';
import { useProductionHashCost } from '../support/hash-cost';
import { endsWithin, isConnected, openLiveStream, type TLiveStream } from '../support/live-stream';
import type { createHttpClient } from '../support/test-server';
import { signInNewStaff, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, statusItem, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// What a black-box probe of the running app broke , each held at its cause.

let server: TTestServer;
let staff: ReturnType<typeof createHttpClient>['client'];

beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  staff = await signInNewStaff(server);
});
afterAll(() => server?.stop());

const trpcPost = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/trpc/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const signInBody = (password: string, email = 'sam@firm.test') => ({ json: { email, password } });

describe('sign-in cannot be brute-forced or used to stall the server', () => {
  // Real ~100 ms hashes: what a flood does to the hashing queue, and guesses racing their checks.
  useProductionHashCost();

  it('refuses sign-in calls in a batch, whatever else the batch holds', async () => {
    const paths = Array.from({ length: 41 }, () => 'auth.signIn').join(',');
    const body = Object.fromEntries(
      Array.from({ length: 41 }, (_, i) => [String(i), signInBody(i === 40 ? 'staff-password' : `wrong-${i}`)]),
    );
    const res = await trpcPost(`${paths}?batch=1`, body, { 'x-forwarded-for': '10.1.0.1' });
    expect(res.status).toBe(400);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect((await trpcPost('auth.me,clients.list?batch=1', {})).status).toBe(400);
  });

  it('counts each attempt before its password is checked: 40 parallel guesses get 8 answers, the rest and the right password 429', async () => {
    await createUser({ email: 'target@firm.test', name: 'Target', role: 'staff', password: 'target-password' });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        trpcPost('auth.signIn', signInBody(`guess-${i}`, 'target@firm.test'), { 'x-forwarded-for': `10.2.0.${i + 1}` }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(8);
    expect(statuses.filter((s) => s === 429)).toHaveLength(32);
    expect(
      (await trpcPost('auth.signIn', signInBody('target-password', 'target@firm.test'), { 'x-forwarded-for': '10.2.1.1' })).status,
    ).toBe(429);
  });

  // The flood's hashes are real (~0.3 s of a core each here): 6 s alone, far more beside other suites.
  it('bounds concurrent password hashing: a flood is told to come back, nothing fails, a real sign-in works after', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        trpcPost('auth.signIn', signInBody('nope-nope', `flood${i}@firm.test`), { 'x-forwarded-for': `10.3.0.${i + 1}` }),
      ),
    );
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, text: await r.text() })));
    expect(bodies.every((b) => b.status === 401 || b.status === 429)).toBe(true);
    expect(bodies.filter((b) => b.status === 429 && b.text.includes('busy checking sign-ins')).length).toBeGreaterThan(0);
    expect((await trpcPost('auth.signIn', signInBody('staff-password'), { 'x-forwarded-for': '10.3.1.1' })).status).toBe(200);
  }, 120_000);

  it('an attempt refused as "busy" costs its account nothing', async () => {
    const emails = Array.from({ length: 40 }, (_, i) => `busy${i}@firm.test`);
    const answers = await Promise.all(
      emails.map(async (email, i) => {
        const res = await trpcPost('auth.signIn', signInBody('nope-nope', email), { 'x-forwarded-for': `10.6.0.${i + 1}` });
        return { email, busy: res.status === 429 && (await res.text()).includes('busy checking sign-ins') };
      }),
    );
    const busy = answers.filter((a) => a.busy).map((a) => a.email);
    expect(busy.length).toBeGreaterThan(0);
    const key = (email: string) => `signin_account:${createHash('sha256').update(email).digest('hex')}`;
    const points = await sql<{ key: string; points: number }>(
      server.databaseUrl,
      'SELECT key, points FROM rate_limits WHERE key = ANY($1::text[])',
      [busy.map(key)],
    );
    expect(points.every((p) => p.points === 0)).toBe(true);
  }, 120_000);

  it('a successful sign-in gives its point back: an office behind one address is not locked out by its own staff', async () => {
    for (let i = 0; i < 35; i++) {
      expect((await trpcPost('auth.signIn', signInBody('staff-password'), { 'x-forwarded-for': '10.4.0.1' })).status).toBe(200);
    }
  });
});

describe('request size and method', () => {
  it('refuses a tRPC body over 100 KB with 413 before reading it whole', async () => {
    const res = await trpcPost('auth.signIn', signInBody('x'.repeat(300_000)));
    expect(res.status).toBe(413);
  });

  it('answers an unknown method with 405 and the allowed ones, logging nothing as an error', async () => {
    const status = await new Promise<{ code: number | undefined; allow: string | undefined }>((resolve, reject) => {
      const req = http.request(`${server.url}/trpc/auth.me`, { method: 'TRACE' }, (res) => {
        res.resume();
        resolve({ code: res.statusCode, allow: res.headers.allow });
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toEqual({ code: 405, allow: 'GET, HEAD, POST' });
  });

  it('answers a POST to a page with a JSON 404, not an HTML page', async () => {
    const res = await fetch(`${server.url}/clients`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'There is nothing at this address.' } });
  });

  it('marks every tRPC answer Cache-Control: no-store', async () => {
    expect((await fetch(`${server.url}/trpc/auth.me`)).headers.get('cache-control')).toBe('no-store');
  });
});

describe('one bad item never fails its delivery', () => {
  it('a message id with NUL is skipped; its sibling is stored and the answer is 200', async () => {
    const res = await postWebhook(
      server.url,
      cloudPayload({
        messages: [
          textMessage('wamid.bad\u0000id', '447700900123', 'bad id'),
          textMessage('wamid.good-sibling', '447700900123', 'good sibling'),
        ],
      }),
    );
    expect(res).toEqual({ status: 200, json: { ok: true, received: 2, stored: 1 } });
  });

  it('a status id with NUL is skipped and a failed receipt with a lone surrogate is applied, readable', async () => {
    const record = await Communication.create({
      type: 'chat',
      direction: 'outbound',
      status: 'sent',
      body: 'x',
      clientId: null,
      peerPhone: '447700900123',
      metadata: { chat_msg_id: 'wamid.lone-surrogate' },
    });
    const failed = {
      ...statusItem('wamid.lone-surrogate', 'failed'),
      errors: [{ code: 131000, title: 'Something went wrong', error_data: { details: 'bad \ud800 text' } }],
    };
    const res = await postWebhook(server.url, cloudPayload({ statuses: [statusItem('wamid.nul\u0000status', 'read'), failed] }));
    expect(res).toEqual({ status: 200, json: { ok: true, statuses: 2, updated: 1 } });
    const stored = await Communication.findByPk(record.id);
    expect(stored?.status).toBe('failed');
    expect(stored?.error).toContain('bad \ufffd text');
  });

  it('a sender written +00… and one written plainly are one conversation; one that starts with 0 is not stored', async () => {
    const res = await postWebhook(
      server.url,
      cloudPayload({
        messages: [
          textMessage('wamid.plus00', '+0033612345678', 'plus double zero'),
          textMessage('wamid.plain', '33612345678', 'plain'),
          textMessage('wamid.zero', '+07700900456', 'national'),
        ],
      }),
    );
    expect(res).toEqual({ status: 200, json: { ok: true, received: 3, stored: 2 } });
    const threads = (await staff.inbox.threads.query()).threads.filter((t) => t.phone?.endsWith('612345678'));
    expect(threads.map((t) => t.phone)).toEqual(['33612345678']);
    expect((await staff.inbox.thread.query({ phone: '33612345678' })).items.map((i) => i.body)).toEqual(['plus double zero', 'plain']);
  });

  it('senders that are not 8–15 digits are counted, not stored; a 00-prefixed one is stored as every lookup reads it', async () => {
    const res = await postWebhook(
      server.url,
      cloudPayload({
        messages: [
          textMessage('wamid.short', '7', 'too short'),
          textMessage('wamid.long', '9'.repeat(64), 'too long'),
          textMessage('wamid.idd', '00447700900999', 'idd prefix'),
        ],
      }),
    );
    expect(res).toEqual({ status: 200, json: { ok: true, received: 3, stored: 1 } });
    const [row] = await sql<{ peer_phone: string }>(
      server.databaseUrl,
      "SELECT peer_phone FROM communications WHERE metadata->>'chat_msg_id' = 'wamid.idd'",
    );
    expect(row?.peer_phone).toBe('447700900999');
    for (const phone of ['447700900999', '00447700900999', '+44 7700 900999']) {
      expect((await staff.inbox.thread.query({ phone })).items.map((i) => i.body)).toContain('idd prefix');
    }
    expect(await staff.inbox.markRead.mutate({ phone: '00447700900999' })).toEqual({ updated: 1 });
  });
});

describe('provider times and sizes are bounded', () => {
  it('a year-9999 timestamp is not believed (the 24-hour window cannot be held open)', async () => {
    await postWebhook(
      server.url,
      cloudPayload({ messages: [textMessage('wamid.future', '447700900998', 'from the future', '253402300799')] }),
    );
    const [row] = await sql<{ provider_timestamp: Date | null }>(
      server.databaseUrl,
      "SELECT provider_timestamp FROM communications WHERE metadata->>'chat_msg_id' = 'wamid.future'",
    );
    expect(row?.provider_timestamp).toBeNull();
    const thread = (await staff.inbox.threads.query()).threads.find((t) => t.phone === '447700900998');
    expect(thread?.lastInboundAt && thread.lastInboundAt.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('an inbound text longer than is stored is cut, with its full length and sha256 kept', async () => {
    const long = 'a'.repeat(10_000);
    await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.long-body', '447700900997', long)] }));
    const [row] = await sql<{ body: string; metadata: { truncated?: { length: number; sha256: string } } }>(
      server.databaseUrl,
      "SELECT body, metadata FROM communications WHERE metadata->>'chat_msg_id' = 'wamid.long-body'",
    );
    expect(row?.body).toHaveLength(MAX_STORED_BODY);
    expect(row?.metadata.truncated).toEqual({ length: 10_000, sha256: createHash('sha256').update(long).digest('hex') });
  });

  it(`refuses more than ${MAX_ITEMS_PER_DELIVERY} items in one delivery with 413, unread; accepts exactly that many`, async () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => statusItem(`wamid.flood-${n}-${i}`, 'read'));
    expect(await postWebhook(server.url, cloudPayload({ statuses: items(MAX_ITEMS_PER_DELIVERY + 1) }))).toEqual({
      status: 413,
      json: { ok: false, error: 'too_many_items', max: MAX_ITEMS_PER_DELIVERY },
    });
    expect((await postWebhook(server.url, cloudPayload({ statuses: items(MAX_ITEMS_PER_DELIVERY) }))).status).toBe(200);
  });
});

describe('outbound text is stored exactly as sent', () => {
  it('refuses a body with NUL before anything is written', async () => {
    const before = await Communication.count();
    await expect(staff.chat.send.mutate({ to: '+44 7700 900123', body: 'a\u0000b' })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
    });
    await expect(staff.settings.sendTest.mutate({ to: '+44 7700 900123', body: 'a\u0000b' })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
    });
    expect(await Communication.count()).toBe(before);
  });
});

describe('nothing grows without bound', () => {
  it(`keeps at most ${MAX_KEPT_PER_DELIVERY} receipts for unknown ids per delivery, and prunes old ones and spent sign-in counters`, async () => {
    await sql(server.databaseUrl, 'DELETE FROM chat_receipts');
    const unknown = Array.from({ length: 600 }, (_, i) => statusItem(`wamid.unknown-${i}`, 'delivered'));
    expect((await postWebhook(server.url, cloudPayload({ statuses: unknown }))).status).toBe(200);
    const count = async (table: string) =>
      Number((await sql<{ n: number }>(server.databaseUrl, `SELECT count(*)::int AS n FROM ${table}`))[0]!.n);
    expect(await count('chat_receipts')).toBe(MAX_KEPT_PER_DELIVERY);

    await sql(
      server.databaseUrl,
      "UPDATE chat_receipts SET created_at = now() - interval '25 hours' WHERE chat_msg_id LIKE 'wamid.unknown-1%'",
    );
    await sql(
      server.databaseUrl,
      "INSERT INTO rate_limits (key, points, expire) VALUES ('spent', 3, 1), ('live', 1, (extract(epoch FROM now()) * 1000)::bigint + 600000)",
    );
    const old = Number(
      (
        await sql<{ n: number }>(
          server.databaseUrl,
          "SELECT count(*)::int AS n FROM chat_receipts WHERE created_at < now() - interval '24 hours'",
        )
      )[0]!.n,
    );
    const pruned = await pruneExpiredRows();
    expect(pruned.receipts).toBe(old);
    expect(pruned.rateLimits).toBeGreaterThanOrEqual(1);
    expect(await count('chat_receipts')).toBe(MAX_KEPT_PER_DELIVERY - old);
    expect(await sql(server.databaseUrl, "SELECT key FROM rate_limits WHERE key IN ('spent', 'live')")).toEqual([{ key: 'live' }]);
  });
});

describe('a live stream ends with its session', () => {
  // Checked every 100 ms rather than every 5 s, so a test of the check need not wait one out.
  beforeAll(() => setSessionCheckInterval(100));
  afterAll(() => setSessionCheckInterval(SESSION_CHECK_EVERY_MS));

  async function openStream(): Promise<{ cookie: string; stream: TLiveStream }> {
    const res = await trpcPost('auth.signIn', signInBody('staff-password'), { 'x-forwarded-for': '10.5.0.1' });
    const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
    const stream = await openLiveStream(server.url, cookie);
    await stream.waitFor(isConnected);
    return { cookie, stream };
  }

  it('signing out ends the stream at once', async () => {
    const { cookie, stream } = await openStream();
    expect((await trpcPost('auth.signOut', {}, { cookie })).status).toBe(200);
    expect(await endsWithin(stream, 2_000)).toBe('ended');
    expect(stream.frames.at(-1)).toEqual({ event: 'return', data: '' });
    stream.close();
  });

  it('an expired (or elsewhere deleted) session ends it within the check interval', async () => {
    const { stream } = await openStream();
    await sql(server.databaseUrl, "UPDATE sessions SET expires_at = now() - interval '1 second'");
    expect(await endsWithin(stream, 2_000)).toBe('ended');
    stream.close();
  });
});
