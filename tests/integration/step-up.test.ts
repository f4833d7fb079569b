import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { codeAt, enrolTotp } from '../support/mfa';
import { sql } from '../support/sql';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { failureOf } from '../support/trpc-failure';

// Step-up (auth.stepUp): the changes that matter most ask a person with a second factor for a proof
// from the last 10 minutes, and a restricted matter's export does too. Real HTTP, a real database;
// the clock (Date only) is moved to age a proof.

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({}, undefined, { signInLimits: { perIp: 10_000, perAccount: 8 } });
});
afterAll(() => server?.stop());
afterEach(() => vi.useRealTimers());

const MINUTE = 60_000;
let clock = 0;
/** Date held still at `at` (the start of a 30-second step plus 5 s, so codes are exact). */
function setClock(at: number): Date {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(at);
  clock = at;
  return new Date(at);
}
const later = (ms: number) => setClock(clock + ms);

let people = 0;
async function person(role: 'director' | 'staff', withTotp: boolean) {
  const email = `stepup${++people}@firm.test`;
  const user = await createUser({ email, name: `Step ${people}`, role, password: `password-${people}-long` });
  const session = createHttpClient(server.url);
  await session.client.auth.signIn.mutate({ email, password: `password-${people}-long` });
  const secret = withTotp ? (await enrolTotp(session.client, new Date(clock))).secret : null;
  return { ...session, id: user.id, email, secret };
}

const reauthOf = async (call: Promise<unknown>) => {
  const error = await failureOf(call);
  return { code: error.data?.code, reauth: (error.data as { reauth?: boolean } | undefined)?.reauth, message: error.message };
};
const ASKED = {
  code: 'FORBIDDEN',
  reauth: true,
  message: "Confirm it's you: enter a code from your authenticator app (or use a passkey), then try again.",
};

async function exportStatus(cookie: string, path: string) {
  const res = await fetch(`${server.url}/api/export/${path}`, { headers: { cookie } });
  const body = res.status === 200 ? null : ((await res.json()) as { error: { reauth?: boolean } });
  await res.body?.cancel().catch(() => undefined);
  return { status: res.status, reauth: body?.error.reauth ?? false };
}

describe('a wall change', () => {
  it('asks for a proof from the last 10 minutes, changes nothing until then, and asks again 11 minutes after', async () => {
    setClock(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
    const dee = await person('director', true);
    const sam = await person('staff', false);
    const { id: clientId } = await dee.client.clients.create.mutate({ name: 'Walled Client', phone: '+447700955501' });
    // The set-up just proved a code: these need no step-up of their own.
    await dee.client.access.addMember.mutate({ clientId, userId: sam.id });
    await dee.client.access.addMember.mutate({ clientId, userId: dee.id });

    later(11 * MINUTE);
    expect(await reauthOf(dee.client.access.setRestricted.mutate({ clientId, restricted: true }))).toEqual(ASKED);
    expect((await dee.client.access.get.query({ clientId })).restricted).toBe(false);

    expect(await dee.client.auth.stepUp.mutate({ code: await codeAt(dee.secret!, new Date(clock)) })).toEqual({
      provenUntil: new Date(clock + 10 * MINUTE),
    });
    expect((await dee.client.access.setRestricted.mutate({ clientId, restricted: true })).restricted).toBe(true);
    const [event] = await sql<{ detail: unknown }>(
      server.databaseUrl,
      "SELECT detail FROM audit_events WHERE action = 'auth.step_up' AND subject = $1",
      [`user:${dee.id}`],
    );
    expect(event!.detail).toEqual({ method: 'totp' });

    later(11 * MINUTE);
    expect(await reauthOf(dee.client.access.setRestricted.mutate({ clientId, restricted: false }))).toEqual(ASKED);
    expect((await dee.client.access.get.query({ clientId })).restricted).toBe(true);
  });

  it('a wrong code is refused and changes nothing; guesses are limited like a sign-in second step', async () => {
    setClock(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
    const dee = await person('director', true);
    later(11 * MINUTE);
    const wrong = await codeAt('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', new Date(clock));
    const first = await failureOf(dee.client.auth.stepUp.mutate({ code: wrong }));
    expect(first.data?.code).toBe('BAD_REQUEST');
    expect(first.message).toMatch(/code is not right/);
    for (let i = 1; i < 8; i += 1) await failureOf(dee.client.auth.stepUp.mutate({ code: wrong }));
    const limited = await failureOf(dee.client.auth.stepUp.mutate({ code: await codeAt(dee.secret!, new Date(clock)) }));
    expect(limited.data?.code).toBe('TOO_MANY_REQUESTS');
    expect(
      await reauthOf(
        dee.client.users.add.mutate({ name: 'Nobody', email: 'nobody@firm.test', role: 'staff', password: 'nobody-password-1' }),
      ),
    ).toEqual(ASKED);
  });

  it('a person without a second factor is not asked (they have nothing to step up with)', async () => {
    setClock(Date.now());
    const dan = await person('director', false);
    const { id: clientId } = await dan.client.clients.create.mutate({ name: 'Open Client', phone: '+447700955502' });
    await dan.client.access.addMember.mutate({ clientId, userId: dan.id });
    expect((await dan.client.access.setRestricted.mutate({ clientId, restricted: true })).restricted).toBe(true);
  });
});

describe('every protected change', () => {
  it('asks for a proof before it runs', async () => {
    setClock(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
    const dee = await person('director', true);
    later(11 * MINUTE);
    const c = dee.client;
    const calls: [string, () => Promise<unknown>][] = [
      ['access.setRestricted', () => c.access.setRestricted.mutate({ clientId: 1, restricted: true })],
      ['access.addMember', () => c.access.addMember.mutate({ clientId: 1, userId: dee.id })],
      ['access.removeMember', () => c.access.removeMember.mutate({ clientId: 1, userId: dee.id })],
      ['access.screen', () => c.access.screen.mutate({ clientId: 1, userId: dee.id, reason: 'Conflict' })],
      ['access.unscreen', () => c.access.unscreen.mutate({ clientId: 1, userId: dee.id })],
      ['retention.destroy', () => c.retention.destroy.mutate({ batchId: '0b6f1f3e-5d2a-4c1e-9a7b-2f3e4d5c6b7a' })],
      ['erasure.decide', () => c.erasure.decide.mutate({ requestId: 1, decision: 'erase' })],
      ['users.invite', () => c.users.invite.mutate({ name: 'Ivy', email: 'ivy@firm.test', role: 'staff' })],
      ['users.add', () => c.users.add.mutate({ name: 'Al', email: 'al@firm.test', role: 'staff', password: 'al-password-long' })],
      ['users.changeRole', () => c.users.changeRole.mutate({ userId: dee.id, role: 'staff' })],
      ['users.deactivate', () => c.users.deactivate.mutate({ userId: dee.id })],
      ['users.reactivate', () => c.users.reactivate.mutate({ userId: dee.id })],
      ['users.endSessions', () => c.users.endSessions.mutate({ userId: dee.id })],
      [
        'settings.setSecurity',
        () => c.settings.setSecurity.mutate({ requireMfa: 'everyone', sessionIdleMinutes: 30, sessionMaxHours: 12 }),
      ],
      ['auth.mfa.remove', () => c.auth.mfa.remove.mutate({ method: 'totp' })],
      ['auth.passkeys.remove', () => c.auth.passkeys.remove.mutate({ id: 1 })],
    ];
    const answers = [];
    for (const [name, call] of calls) answers.push([name, await reauthOf(call())]);
    expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(calls.map(([name]) => [name, ASKED])));
    expect((await c.auth.mfa.status.query()).totp).toBe(true);
  });
});

describe('exports', () => {
  it("a restricted matter's export asks for a proof; an ordinary one does not", async () => {
    setClock(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
    const dee = await person('director', true);
    const cookie = `${SESSION_COOKIE}=${dee.jar.get(SESSION_COOKIE)}`;
    const open = await dee.client.clients.create.mutate({ name: 'Ordinary Client', phone: '+447700955503' });
    const walled = await dee.client.clients.create.mutate({ name: 'Walled Export', phone: '+447700955504' });
    await dee.client.access.addMember.mutate({ clientId: walled.id, userId: dee.id });
    await dee.client.access.setRestricted.mutate({ clientId: walled.id, restricted: true });

    later(11 * MINUTE);
    expect(await exportStatus(cookie, `client/${open.id}.json`)).toEqual({ status: 200, reauth: false });
    expect(await exportStatus(cookie, `client/${walled.id}.json`)).toEqual({ status: 403, reauth: true });
    await dee.client.auth.stepUp.mutate({ code: await codeAt(dee.secret!, new Date(clock)) });
    expect(await exportStatus(cookie, `client/${walled.id}.json`)).toEqual({ status: 200, reauth: false });
  });
});
