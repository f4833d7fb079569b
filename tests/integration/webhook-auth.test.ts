import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWebhookAuthentic } from '../../server/webhook/verify-signature';
import { startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sign, sql, textMessage, VERIFY_TOKEN, WEBHOOK_SECRET } from '../support/webhook';

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET, MESSAGING_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN });
});
afterAll(() => server?.stop());

const storedCount = async () => Number((await sql<{ n: string }>(server.databaseUrl, 'SELECT count(*) AS n FROM communications'))[0]!.n);
let seq = 0;
const freshBody = () => JSON.stringify(cloudPayload({ messages: [textMessage(`wamid.auth-${++seq}`, '447700900123', 'hello')] }));

describe('webhook signature', () => {
  it("matches GitHub's published HMAC-SHA256 known-answer vector", () => {
    const secret = "It's a Secret to Everybody";
    const body = Buffer.from('Hello, World!');
    const expected = '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(sign(body, secret)).toBe(expected);
    const auth = { secret, allowUnauthenticated: false };
    expect(isWebhookAuthentic({ 'x-hub-signature-256': `sha256=${expected}` }, body, auth)).toBe(true);
    expect(isWebhookAuthentic({ 'x-hub-signature-256': `sha256=${expected}` }, Buffer.from('Hello, World?'), auth)).toBe(false);
  });

  it.each([
    ['X-Service-Signature with sha256=', (raw: string) => ({ 'X-Service-Signature': `sha256=${sign(raw)}` })],
    ['X-Service-Signature bare hex', (raw: string) => ({ 'X-Service-Signature': sign(raw) })],
    ['X-Hub-Signature-256 with sha256=', (raw: string) => ({ 'X-Hub-Signature-256': `sha256=${sign(raw)}` })],
    ['X-Hub-Signature-256 bare hex', (raw: string) => ({ 'X-Hub-Signature-256': sign(raw) })],
    ['x-service-webhook-secret plain secret', () => ({ 'x-service-webhook-secret': WEBHOOK_SECRET })],
  ])('accepts %s and stores the message', async (_name, headersFor) => {
    const raw = freshBody();
    const before = await storedCount();
    const res = await postWebhook(server.url, raw, { headers: { 'content-type': 'application/json', ...headersFor(raw) } });
    expect(res).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
    expect(await storedCount()).toBe(before + 1);
  });

  const good = (raw: string) => sign(raw);
  // fetch only sends byte strings: send the UTF-8 bytes of a multibyte value, as a client would.
  const utf8Bytes = (value: string) => Buffer.from(value, 'utf8').toString('latin1');
  it.each([
    ['no credential at all', () => ({})],
    ['an empty signature', () => ({ 'x-service-signature': '' })],
    ['"sha256=" alone', () => ({ 'x-service-signature': 'sha256=' })],
    ['63 hex characters', (raw: string) => ({ 'x-service-signature': good(raw).slice(0, 63) })],
    ['65 hex characters', (raw: string) => ({ 'x-service-signature': `${good(raw)}0` })],
    ['non-hex characters', (raw: string) => ({ 'x-service-signature': `${good(raw).slice(0, 62)}zz` })],
    ['the right digest in uppercase', (raw: string) => ({ 'x-hub-signature-256': `sha256=${good(raw).toUpperCase()}` })],
    ['multibyte UTF-8 bytes', () => ({ 'x-service-signature': `sha256=${utf8Bytes('é'.repeat(32))}` })],
    ['a signature over other bytes', (raw: string) => ({ 'x-service-signature': sign(`${raw} `) })],
    ['a signature made with another secret', (raw: string) => ({ 'x-service-signature': sign(raw, 'not-the-secret') })],
    ['a wrong plain secret', () => ({ 'x-service-webhook-secret': `${WEBHOOK_SECRET}x` })],
    ['a multibyte plain secret', () => ({ 'x-service-webhook-secret': utf8Bytes(`${WEBHOOK_SECRET}秘密`) })],
  ])('refuses %s with 401 and stores nothing', async (_name, headersFor) => {
    const raw = freshBody();
    const before = await storedCount();
    const res = await postWebhook(server.url, raw, { headers: { 'content-type': 'application/json', ...headersFor(raw) } });
    expect(res).toEqual({ status: 401, json: { ok: false, error: 'unauthorized' } });
    expect(await storedCount()).toBe(before);
  });

  it('refuses a duplicated signature header (two values) with 401', async () => {
    const raw = freshBody();
    const headers = new Headers({ 'content-type': 'application/json' });
    headers.append('x-service-signature', `sha256=${sign(raw)}`);
    headers.append('x-service-signature', `sha256=${sign(raw)}`);
    const res = await fetch(`${server.url}/api/webhooks/chat`, { method: 'POST', headers, body: raw });
    expect(res.status).toBe(401);
  });

  it('never accepts the secret as ?token=', async () => {
    const res = await postWebhook(server.url, freshBody(), { query: `?token=${WEBHOOK_SECRET}`, unsigned: true });
    expect(res.status).toBe(401);
  });

  it('answers 400 to a correctly signed body that is not JSON', async () => {
    const raw = 'this is { not json';
    const res = await postWebhook(server.url, raw, { headers: { 'x-service-signature': sign(raw) } });
    expect(res).toEqual({ status: 400, json: { ok: false, error: 'invalid_json' } });
  });

  it('verifies unicode and emoji bodies over the raw bytes', async () => {
    const raw = JSON.stringify(cloudPayload({ messages: [textMessage('wamid.unicode-1', '447700900123', 'Grüße 👋🏽 — 你好 ‮')] }));
    const res = await postWebhook(server.url, raw, { headers: { 'x-service-signature': `sha256=${sign(Buffer.from(raw, 'utf8'))}` } });
    expect(res.status).toBe(200);
    const rows = await sql<{ body: string }>(
      server.databaseUrl,
      "SELECT body FROM communications WHERE metadata->>'chat_msg_id' = 'wamid.unicode-1'",
    );
    expect(rows[0]?.body).toBe('Grüße 👋🏽 — 你好 ‮');
  });

  it('refuses a POST with neither the secret nor a signature before reading its body', async () => {
    // Headers promise 3 MB; only 1 KB is sent and the request is never finished. Buffering the
    // body first would leave this without an answer.
    const url = new URL(`${server.url}/api/webhooks/chat`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': 3 * 1024 * 1024 },
        },
        (res) => {
          resolve(res.statusCode ?? 0);
          res.resume();
          req.destroy();
        },
      );
      req.on('error', () => undefined);
      req.write('x'.repeat(1024));
      setTimeout(() => reject(new Error('no answer before the body was sent')), 5_000).unref();
    });
    expect(status).toBe(401);
    // A wrong secret, too; a well-formed signature is checked against the body once read.
    const raw = freshBody();
    expect((await postWebhook(server.url, raw, { headers: { 'x-service-webhook-secret': 'wrong' } })).status).toBe(401);
    expect((await postWebhook(server.url, raw, { headers: { 'x-service-signature': sign('another body') } })).status).toBe(401);
  });

  it('refuses a body over 3 MB with 413 and stores nothing', async () => {
    const before = await storedCount();
    const raw = JSON.stringify(cloudPayload({ messages: [textMessage('wamid.big', '447700900123', 'x'.repeat(3 * 1024 * 1024 + 10))] }));
    const res = await postWebhook(server.url, raw, { headers: { 'x-service-signature': sign(raw) } });
    expect(res.status).toBe(413);
    expect(await storedCount()).toBe(before);
  });
});

describe('webhook verification handshake', () => {
  const handshake = (query: string) => fetch(`${server.url}/api/webhooks/chat?${query}`);

  it('echoes hub.challenge as text/plain when the token matches', async () => {
    const res = await handshake(`hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('1158201444');
  });

  it.each([
    ['a wrong token', `hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`],
    ['a missing token', `hub.mode=subscribe&hub.challenge=1`],
    ['a missing challenge', `hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}`],
    ['a wrong mode', `hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`],
    ['a missing mode', `hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`],
    ['a repeated token', `hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`],
    ['a repeated challenge', `hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1&hub.challenge=2`],
    ['a repeated mode', `hub.mode=subscribe&hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`],
  ])('answers 403 to %s', async (_name, query) => {
    expect((await handshake(query)).status).toBe(403);
  });
});
