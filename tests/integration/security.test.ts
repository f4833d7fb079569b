import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { sign, sql, WEBHOOK_SECRET } from '../support/webhook';

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET }, undefined, { signInLimits: { perIp: 12, perAccount: 4 } });
  await createUser({ email: 'dee@firm.test', name: 'Dee', role: 'director', password: 'director-password' });
  await createUser({ email: 'sam@firm.test', name: 'Sam', role: 'staff', password: 'staff-password' });
  await createUser({ email: 'dora@firm.test', name: 'Dora', role: 'director', password: 'director-password' });
});
afterAll(() => server?.stop());

const countRows = async () => Number((await sql<{ n: string }>(server.databaseUrl, 'SELECT count(*) AS n FROM communications'))[0]!.n);

describe('cross-site requests to tRPC', () => {
  async function signedInCookie(): Promise<string> {
    const { client, jar } = createHttpClient(server.url);
    await client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    return `firm_chat_session=${jar.get('firm_chat_session')}`;
  }
  const sendBody = JSON.stringify({ json: { to: '+44 7700 900123', body: 'forged' } });

  it('refuses a form-encoded POST (what a cross-site form can send) even with a valid session', async () => {
    const cookie = await signedInCookie();
    const before = await countRows();
    const res = await fetch(`${server.url}/trpc/chat.send`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `json=${encodeURIComponent(sendBody)}`,
    });
    expect(res.status).toBe(415);
    const plain = await fetch(`${server.url}/trpc/chat.send`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'text/plain' },
      body: sendBody,
    });
    expect(plain.status).toBe(415);
    expect(await countRows()).toBe(before);
  });

  it('refuses a JSON POST from another origin, and accepts the same origin or none', async () => {
    const cookie = await signedInCookie();
    const post = (origin?: string) =>
      fetch(`${server.url}/trpc/chat.send`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        body: sendBody,
      });
    expect((await post('https://evil.example')).status).toBe(403);
    expect((await post(server.url)).status).toBe(200);
    expect((await post()).status).toBe(200);
  });
});

describe('sign-in brute force', () => {
  it('blocks an account after repeated failures with a clear error, for real and unknown accounts alike', async () => {
    const attempt = (email: string, password = 'wrong-password', ip?: string) =>
      createHttpClient(server.url, ip ? { 'x-forwarded-for': ip } : {})
        .client.auth.signIn.mutate({ email, password })
        .then(
          () => 'ok',
          (e: { data?: { code?: string }; message: string }) => `${e.data?.code}: ${e.message}`,
        );
    const real: string[] = [];
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      real.push(await attempt('dee@firm.test', 'wrong-password', `10.0.0.${i + 1}`));
      made.push(await attempt('nobody@firm.test', 'wrong-password', `10.0.1.${i + 1}`));
    }
    expect(real.slice(0, 4).every((r) => r.startsWith('UNAUTHORIZED'))).toBe(true);
    expect(real[4]).toMatch(/^TOO_MANY_REQUESTS: Too many sign-in attempts\. Wait \d+ minutes? and try again\.$/);
    expect(made).toEqual(real); // no way to tell which account exists
    // Even the right password waits out the block.
    expect(await attempt('dee@firm.test', 'director-password', '10.0.2.1')).toMatch(/^TOO_MANY_REQUESTS/);
  });

  it('blocks an address that tries many accounts', async () => {
    const results: string[] = [];
    for (let i = 0; i < 13; i++) {
      results.push(
        await createHttpClient(server.url, { 'x-forwarded-for': '10.9.9.9' })
          .client.auth.signIn.mutate({ email: `user${i}@firm.test`, password: 'nope-nope-nope' })
          .then(
            () => 'ok',
            (e: { data?: { code?: string } }) => e.data?.code ?? 'error',
          ),
      );
    }
    expect(results.slice(0, 12).every((r) => r === 'UNAUTHORIZED')).toBe(true);
    expect(results[12]).toBe('TOO_MANY_REQUESTS');
  });
});

describe('director procedures', () => {
  it.each([
    ['users.list', (c: ReturnType<typeof createHttpClient>['client']) => c.users.list.query()],
    ['settings.checkConnection', (c: ReturnType<typeof createHttpClient>['client']) => c.settings.checkConnection.mutate()],
  ] as const)('%s: anonymous → UNAUTHORIZED, staff → FORBIDDEN, director → answered', async (_name, call) => {
    const anonymous = createHttpClient(server.url).client;
    await expect(call(anonymous)).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    const staff = createHttpClient(server.url, { 'x-forwarded-for': '10.7.0.1' }).client;
    await staff.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    await expect(call(staff)).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    const director = createHttpClient(server.url, { 'x-forwarded-for': '10.7.0.2' }).client;
    await director.auth.signIn.mutate({ email: 'dora@firm.test', password: 'director-password' });
    await expect(call(director)).resolves.toBeTruthy();
  });
});

describe('headers and hostile bodies', () => {
  it('serves security headers with a CSP on pages and the API', async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('answers a gzip bomb with 413 and stores nothing', async () => {
    const before = await countRows();
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20)); // 50 MB of spaces, ~50 KB on the wire
    const res = await fetch(`${server.url}/api/webhooks/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-service-signature': sign(bomb) },
      body: bomb,
    });
    expect(res.status).toBe(413);
    expect(await countRows()).toBe(before);
  });

  it('answers an unsupported content encoding with 415, and a wrong or missing body without a 500', async () => {
    const body = '{"messages":[]}';
    const compress = await fetch(`${server.url}/api/webhooks/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'compress', 'x-service-signature': sign(body) },
      body,
    });
    expect(compress.status).toBe(415);
    const xml = await fetch(`${server.url}/api/webhooks/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml', 'x-service-signature': sign('<a/>') },
      body: '<a/>',
    });
    expect(xml.status).toBe(400);
    const none = await fetch(`${server.url}/api/webhooks/chat`, { method: 'POST', headers: { 'x-service-signature': sign('') } });
    expect(none.status).toBe(400);
  });
});
