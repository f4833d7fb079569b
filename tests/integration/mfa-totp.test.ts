import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { codeAt, enrolTotp } from '../support/mfa';
import { sql } from '../support/sql';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { failureOf as errorOf } from '../support/trpc-failure';

// Authenticator codes and recovery codes as a second sign-in step (auth.signIn → auth.completeSignIn),
// and setting them up (auth.mfa.*). Real HTTP, a real database; the clock (Date only) is held still so
// a test names the 30-second step each code belongs to.

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({}, undefined, { signInLimits: { perIp: 10_000, perAccount: 8 } });
});
afterAll(() => server?.stop());
afterEach(() => vi.useRealTimers());

/** Date held at the start of a 30-second step (plus 5 s), so ±1 step around it is exact. */
function holdClock(): Date {
  const at = new Date(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(at);
  return at;
}

let people = 0;
async function addPerson(): Promise<{ id: number; email: string; password: string }> {
  const email = `mfa${++people}@firm.test`;
  const password = `password-${people}-long`;
  const user = await createUser({ email, name: `Person ${people}`, role: 'staff', password });
  return { id: user.id, email, password };
}

async function signedIn(email: string, password: string) {
  const session = createHttpClient(server.url);
  const answer = await session.client.auth.signIn.mutate({ email, password });
  return { ...session, answer };
}

/** A person with an authenticator app set up (confirmed with the step before `at`), signed in on one browser. */
async function enrolled(at: Date) {
  const person = await addPerson();
  const first = await signedIn(person.email, person.password);
  const { secret, recoveryCodes } = await enrolTotp(first.client, at);
  return { ...person, first, secret, recoveryCodes };
}

async function ticketFor(email: string, password: string) {
  const session = await signedIn(email, password);
  if (!('mfaRequired' in session.answer)) throw new Error('expected a second step');
  return { ...session, ticket: session.answer.ticket, methods: session.answer.methods };
}

const trail = (action: string, subject: string) =>
  sql<{ detail: Record<string, unknown> }>(
    server.databaseUrl,
    'SELECT detail FROM audit_events WHERE action = $1 AND subject = $2 ORDER BY id',
    [action, subject],
  );

describe('setting up an authenticator app', () => {
  it('counts only once confirmed, gives 10 recovery codes once, and keeps the seed sealed', async () => {
    const at = holdClock();
    const person = await addPerson();
    const { client } = await signedIn(person.email, person.password);
    const { secret, otpauthUrl } = await client.auth.mfa.startTotp.mutate();
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    expect(decodeURIComponent(otpauthUrl)).toContain(`Firm Chat:${person.email}`);
    expect(otpauthUrl).toContain(`secret=${secret}`);
    // Started, not confirmed: nothing is asked at sign-in yet.
    expect(await client.auth.mfa.status.query()).toEqual({ totp: false, passkeys: 0, recoveryCodesLeft: 0 });
    expect('user' in (await signedIn(person.email, person.password)).answer).toBe(true);

    const wrong = await errorOf(client.auth.mfa.confirmTotp.mutate({ code: await codeAt(secret, at, 5) }));
    expect(wrong.data?.code).toBe('BAD_REQUEST');
    const { recoveryCodes } = await client.auth.mfa.confirmTotp.mutate({ code: await codeAt(secret, at) });
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect(await client.auth.mfa.status.query()).toEqual({ totp: true, passkeys: 0, recoveryCodesLeft: 10 });
    expect(await trail('auth.mfa_enrol', `user:${person.id}`)).toEqual([{ detail: { method: 'totp' } }]);
    // A second set-up while one is confirmed is refused (remove it first).
    expect((await errorOf(client.auth.mfa.startTotp.mutate())).data?.code).toBe('CONFLICT');

    // Read as the owner: neither the seed nor a recovery code is stored as it is.
    const [row] = await sql<{ sealed_secret: string }>(server.databaseUrl, 'SELECT sealed_secret FROM totp_factors WHERE user_id = $1', [
      person.id,
    ]);
    expect(row!.sealed_secret).not.toContain(secret);
    expect(Buffer.from(row!.sealed_secret.replaceAll('.', ''), 'base64url').toString('latin1')).not.toContain(secret);
    const stored = JSON.stringify(await sql(server.databaseUrl, 'SELECT * FROM recovery_codes WHERE user_id = $1', [person.id]));
    for (const code of recoveryCodes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replace('-', ''));
    }
  });
});

describe('signing in with a second step', () => {
  it('asks for the code after the password and gives no session before it; the code gives one, audited', async () => {
    const at = holdClock();
    const person = await enrolled(at);
    const second = await ticketFor(person.email, person.password);
    expect(second.methods).toEqual(['totp', 'recovery_code']);
    expect(second.jar.has(SESSION_COOKIE)).toBe(false);
    expect(await second.client.auth.me.query()).toBeNull();

    const { user } = await second.client.auth.completeSignIn.mutate({ ticket: second.ticket, code: await codeAt(person.secret, at) });
    expect(user).toMatchObject({ id: person.id, email: person.email });
    expect(second.jar.has(SESSION_COOKIE)).toBe(true);
    expect(await second.client.auth.me.query()).toMatchObject({ id: person.id });
    const sessions = await second.client.auth.sessions.query();
    expect(sessions.find((s) => s.current)?.method).toBe('totp');
    expect((await trail('auth.sign_in', `user:${person.id}`)).map((e) => e.detail)).toContainEqual({ method: 'totp' });
  });

  it('refuses a wrong code, and a code already used (here or in another tab)', async () => {
    const at = holdClock();
    const person = await enrolled(at);
    const first = await ticketFor(person.email, person.password);
    const wrong = await errorOf(
      first.client.auth.completeSignIn.mutate({ ticket: first.ticket, code: await codeAt(person.secret, at, 3) }),
    );
    expect(wrong.data?.code).toBe('UNAUTHORIZED');
    expect(wrong.message).toBe('That code is not right. Check your authenticator app and try again.');
    expect(first.jar.has(SESSION_COOKIE)).toBe(false);
    const code = await codeAt(person.secret, at);
    await first.client.auth.completeSignIn.mutate({ ticket: first.ticket, code });

    const again = await ticketFor(person.email, person.password);
    const replay = await errorOf(again.client.auth.completeSignIn.mutate({ ticket: again.ticket, code }));
    expect(replay.data?.code).toBe('UNAUTHORIZED');
    expect(replay.message).toMatch(/already been used/);
    // The step confirmed at set-up is spent too; the next code still works.
    const earlier = await errorOf(
      again.client.auth.completeSignIn.mutate({ ticket: again.ticket, code: await codeAt(person.secret, at, -1) }),
    );
    expect(earlier.message).toMatch(/already been used/);
    await again.client.auth.completeSignIn.mutate({ ticket: again.ticket, code: await codeAt(person.secret, at, 1) });
    const reasons = (await trail('auth.sign_in_failed', `email:${person.email}`)).map((e) => e.detail.reason);
    expect(reasons).toEqual(['wrong_code', 'replayed_code', 'replayed_code']);
  });

  it('takes one code of several sent at once: the others are refused', async () => {
    const at = holdClock();
    const person = await enrolled(at);
    const tabs = [];
    for (let i = 0; i < 8; i++) tabs.push(await ticketFor(person.email, person.password));
    const code = await codeAt(person.secret, at);
    const results = await Promise.allSettled(tabs.map((tab) => tab.client.auth.completeSignIn.mutate({ ticket: tab.ticket, code })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('accepts a recovery code once, in any case and without its dash', async () => {
    const at = holdClock();
    const person = await enrolled(at);
    const recovery = person.recoveryCodes[3]!;
    const first = await ticketFor(person.email, person.password);
    await first.client.auth.completeSignIn.mutate({ ticket: first.ticket, recoveryCode: ` ${recovery.replace('-', '').toUpperCase()} ` });
    expect((await first.client.auth.sessions.query()).find((s) => s.current)?.method).toBe('recovery_code');
    expect((await first.client.auth.mfa.status.query()).recoveryCodesLeft).toBe(9);

    const second = await ticketFor(person.email, person.password);
    const used = await errorOf(second.client.auth.completeSignIn.mutate({ ticket: second.ticket, recoveryCode: recovery }));
    expect(used.data?.code).toBe('UNAUTHORIZED');
    expect(used.message).toBe('That recovery code is not right, or it has already been used.');
    expect(second.jar.has(SESSION_COOKIE)).toBe(false);
  });

  it('refuses a ticket that is unknown, used, expired, or has had 5 wrong answers', async () => {
    const at = holdClock();
    const person = await enrolled(at);
    const dead = 'This sign-in has expired or was already used. Sign in again.';
    const good = (steps: number) => codeAt(person.secret, at, steps);
    const anon = createHttpClient(server.url).client;
    expect((await errorOf(anon.auth.completeSignIn.mutate({ ticket: 'made-up', code: await good(0) }))).message).toBe(dead);

    const used = await ticketFor(person.email, person.password);
    await used.client.auth.completeSignIn.mutate({ ticket: used.ticket, code: await good(0) });
    expect((await errorOf(used.client.auth.completeSignIn.mutate({ ticket: used.ticket, code: await good(1) }))).message).toBe(dead);

    const expired = await ticketFor(person.email, person.password);
    vi.setSystemTime(new Date(at.getTime() + 5 * 60_000 + 1));
    const late = await errorOf(expired.client.auth.completeSignIn.mutate({ ticket: expired.ticket, code: await good(11) }));
    expect(late.message).toBe(dead);

    vi.setSystemTime(at);
    const guessed = await ticketFor(person.email, person.password);
    for (let i = 0; i < 5; i++) {
      await errorOf(guessed.client.auth.completeSignIn.mutate({ ticket: guessed.ticket, recoveryCode: `wrong-${i}` }));
    }
    expect((await errorOf(guessed.client.auth.completeSignIn.mutate({ ticket: guessed.ticket, code: await good(1) }))).message).toBe(dead);
  });
});

describe('removing the authenticator app', () => {
  it('ends the person’s other sessions, keeps this one, audits it, and signs in with the password alone after', async () => {
    const at = holdClock();
    const person = await enrolled(at);
    const other = await ticketFor(person.email, person.password);
    await other.client.auth.completeSignIn.mutate({ ticket: other.ticket, code: await codeAt(person.secret, at) });
    expect(await other.client.auth.me.query()).not.toBeNull();

    expect(await person.first.client.auth.mfa.remove.mutate({ method: 'totp' })).toEqual({ sessionsEnded: 1 });
    expect(await other.client.auth.me.query()).toBeNull();
    expect(await person.first.client.auth.me.query()).toMatchObject({ id: person.id });
    expect(await person.first.client.auth.mfa.status.query()).toEqual({ totp: false, passkeys: 0, recoveryCodesLeft: 0 });
    expect(await trail('auth.mfa_remove', `user:${person.id}`)).toEqual([{ detail: { method: 'totp', sessionsEnded: 1 } }]);
    expect('user' in (await signedIn(person.email, person.password)).answer).toBe(true);
  });

  it('new recovery codes replace the old ones', async () => {
    const at = holdClock();
    const person = await enrolled(at);
    const { recoveryCodes } = await person.first.client.auth.mfa.regenerateRecoveryCodes.mutate();
    expect(recoveryCodes).toHaveLength(10);
    const old = await ticketFor(person.email, person.password);
    expect(
      (await errorOf(old.client.auth.completeSignIn.mutate({ ticket: old.ticket, recoveryCode: person.recoveryCodes[0]! }))).data?.code,
    ).toBe('UNAUTHORIZED');
    await old.client.auth.completeSignIn.mutate({ ticket: old.ticket, recoveryCode: recoveryCodes[0]! });
    expect(await trail('auth.recovery_codes_regenerated', `user:${person.id}`)).toEqual([{ detail: { count: 10 } }]);
  });
});
