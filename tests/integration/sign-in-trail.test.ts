import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { sql } from '../support/sql';
import { startTestServer, type TTestServer } from '../support/test-server';

// Sign-in attempts the trail used to miss: emails PostgreSQL cannot hold, and attempts the limiter refuses.

const LIMITS = { perIp: 6, perAccount: 3 };
let server: TTestServer;

beforeAll(async () => {
  server = await startTestServer({}, undefined, { signInLimits: LIMITS });
  await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
});
afterAll(() => server?.stop());

const signIn = async (email: string, password: string, ip: string) => {
  const res = await fetch(`${server.url}/trpc/auth.signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ json: { email, password } }),
  });
  const body = (await res.json()) as {
    error?: { json?: { message: string; data?: { code?: string; fieldErrors?: Record<string, string[]> } } };
  };
  return { status: res.status, error: body.error?.json };
};

type TRow = { action: string; subject: string; detail: Record<string, unknown>; ip: string | null };
const trail = (action: string, subject: string) =>
  sql<TRow>(server.databaseUrl, 'SELECT action, subject, detail, ip FROM audit_events WHERE action = $1 AND subject = $2 ORDER BY id', [
    action,
    subject,
  ]);

describe('an email PostgreSQL cannot store', () => {
  it.each([
    ['a NUL', 'nul\u0000@firm.test', 'email:nul[U+0000]@firm.test'],
    ['a lone surrogate', 'half\uD800@firm.test', 'email:half[U+D800]@firm.test'],
  ])('with %s is refused as invalid input (400) and leaves a readable failed sign-in in the trail', async (_what, email, subject) => {
    const answer = await signIn(email, 'whatever-password', '10.20.0.1');
    expect(answer.status).toBe(400);
    expect(answer.error?.data?.code).toBe('BAD_REQUEST');
    expect(answer.error?.message).toMatch(/^The email has a character no email address can have/);
    expect(answer.error?.data?.fieldErrors?.email).toEqual([answer.error?.message]);
    const rows = await trail('auth.sign_in_failed', subject);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.detail).toEqual({ email: subject.slice('email:'.length), reason: 'invalid_email' });
    expect(rows[0]!.ip).toBe('10.20.0.1');
  });

  it('still counts against the limiter, so such attempts cannot flood the trail', async () => {
    const answers: number[] = [];
    for (let i = 0; i < LIMITS.perAccount + 2; i++) answers.push((await signIn('flood\u0000@firm.test', 'x', `10.21.0.${i + 1}`)).status);
    expect(answers).toEqual([400, 400, 400, 429, 429]);
    expect(await trail('auth.sign_in_failed', 'email:flood[U+0000]@firm.test')).toHaveLength(LIMITS.perAccount);
  });
});

describe('attempts the limiter refuses', () => {
  it('leave one row per burst for an account: when it becomes limited, with the limit and until when', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.perAccount + 4; i++) statuses.push((await signIn('sam@firm.test', `guess-${i}`, `10.30.0.${i + 1}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429]);
    const rows = await trail('auth.sign_in_limited', 'email:sam@firm.test');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      ip: '10.30.0.4',
      detail: { limited: 'account', email: 'sam@firm.test', attempts: LIMITS.perAccount, window_minutes: 15 },
    });
    const until = Date.parse(String(rows[0]!.detail.blocked_until));
    expect(until - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(15 * 60_000);
  });

  it('one row for a burst of parallel attempts, and a new row for the next burst once the block is over', async () => {
    await createUser({ email: 'target@firm.test', name: 'Target', role: 'staff', password: 'target-password' });
    const burst = (round: number) =>
      Promise.all(Array.from({ length: 20 }, (_, i) => signIn('target@firm.test', `guess-${i}`, `10.31.${round}.${i + 1}`)));
    const first = await burst(1);
    expect(first.filter((a) => a.status === 429)).toHaveLength(20 - LIMITS.perAccount);
    expect(await trail('auth.sign_in_limited', 'email:target@firm.test')).toHaveLength(1);
    await burst(2);
    expect(await trail('auth.sign_in_limited', 'email:target@firm.test')).toHaveLength(1);
    // The block runs out (as 15 minutes would make it): the next refusals are another burst.
    await sql(server.databaseUrl, "UPDATE rate_limits SET expire = 1 WHERE key LIKE 'signin_account:%'");
    await burst(3);
    expect(await trail('auth.sign_in_limited', 'email:target@firm.test')).toHaveLength(2);
  });

  it('leave one row per burst for an address trying many accounts, naming the address counted', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.perIp + 3; i++) statuses.push((await signIn(`user${i}@firm.test`, 'nope-nope', '10.40.0.9')).status);
    expect(statuses.slice(0, LIMITS.perIp).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(LIMITS.perIp).every((s) => s === 429)).toBe(true);
    const rows = await trail('auth.sign_in_limited', 'ip:10.40.0.9');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.detail).toMatchObject({ limited: 'address', address: '10.40.0.9', attempts: LIMITS.perIp, window_minutes: 15 });
  });
});
