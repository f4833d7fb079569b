import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSessionUser, LAST_SEEN_EVERY_MS, SESSION_COOKIE } from '../../server/auth/sessions';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { endsWithin, isConnected, openLiveStream, type TLiveStream } from '../support/live-stream';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';

// Sessions people can see and end: their own in Settings (auth.sessions, auth.revokeSession), a
// person's by a director (users.sessions, users.endSessions). Over real HTTP, on a real database.
let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());

const SESSION_SECRET = 'test-session-secret-0123456789abcdef'; // startLiveSetup's
const LAPTOP = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15';
const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
const db = () => live.server.databaseUrl;
let people = 0;

/** A new member of staff, added by the director. */
async function addPerson(role: 'staff' | 'director' = 'staff'): Promise<{ id: number; email: string }> {
  const email = `person${++people}@firm.test`;
  const { user } = await live.director.users.add.mutate({ name: `Person ${people}`, email, role, password: 'first-password' });
  return { id: user.id, email };
}

/** One browser signed in as `email`, with its own cookie jar and user agent. */
async function signIn(email: string, userAgent = LAPTOP, password = 'first-password') {
  const session = createHttpClient(live.server.url, { 'user-agent': userAgent });
  await session.client.auth.signIn.mutate({ email, password });
  const token = session.jar.get(SESSION_COOKIE)!;
  return { ...session, token, cookie: `${SESSION_COOKIE}=${token}` };
}

async function openStream(cookie: string): Promise<TLiveStream> {
  const stream = await openLiveStream(live.server.url, cookie);
  await stream.waitFor(isConnected);
  return stream;
}

const trail = (action: string, subject: string) =>
  sql<{ user_id: number | null; detail: unknown }>(
    db(),
    'SELECT user_id, detail FROM audit_events WHERE action = $1 AND subject = $2 ORDER BY id',
    [action, subject],
  );

describe('your own sessions', () => {
  it('lists each sign-in with where, how and when, the current one marked, named by a public id only', async () => {
    const { id, email } = await addPerson();
    const laptop = await signIn(email, LAPTOP);
    const phone = await signIn(email, PHONE);

    const seen = await laptop.client.auth.sessions.query();
    expect(seen).toHaveLength(2);
    expect(seen.map((s) => [s.userAgent, s.method, s.current])).toEqual(
      expect.arrayContaining([
        [LAPTOP, 'password', true],
        [PHONE, 'password', false],
      ]),
    );
    for (const session of seen) {
      // An IPv4 client of a dual-stack server is shown as people write it, not as ::ffff:127.0.0.1.
      expect(session.ip).toMatch(/^(127\.0\.0\.1|::1)$/);
      expect(session.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(session.lastSeenAt).toBeInstanceOf(Date);
    }
    // The stored key (the cookie's keyed hash) never leaves the server.
    const keys = await sql<{ id: string }>(db(), 'SELECT id FROM sessions WHERE user_id = $1', [id]);
    for (const key of keys) expect(seen.map((s) => s.id)).not.toContain(key.id);
    // The phone sees the same two, its own marked.
    expect((await phone.client.auth.sessions.query()).find((s) => s.current)?.userAgent).toBe(PHONE);
    // The trail says how they signed in.
    expect((await trail('auth.sign_in', `user:${id}`)).map((e) => e.detail)).toEqual([{ method: 'password' }, { method: 'password' }]);
  });

  it('signing out another of your sessions ends it at once: its cookie is refused, its live stream ends, the trail says so', async () => {
    const { id, email } = await addPerson();
    const laptop = await signIn(email, LAPTOP);
    const phone = await signIn(email, PHONE);
    const stream = await openStream(phone.cookie);
    const phoneId = (await laptop.client.auth.sessions.query()).find((s) => !s.current)!.id;

    expect(await laptop.client.auth.revokeSession.mutate({ id: phoneId })).toEqual({ ok: true });
    expect(await endsWithin(stream, 1_000)).toBe('ended');
    stream.close();
    expect(await phone.client.auth.me.query()).toBeNull();
    await expect(phone.client.inbox.unreadCount.query()).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    // The laptop is still signed in, and now has one session.
    expect((await laptop.client.auth.sessions.query()).map((s) => s.current)).toEqual([true]);
    expect(await trail('auth.session_revoked', `user:${id}`)).toEqual([{ user_id: id, detail: { method: 'password' } }]);
  });

  it('signing out the session you are using clears its cookie, as signing out does', async () => {
    const { id, email } = await addPerson();
    const laptop = await signIn(email);
    const own = (await laptop.client.auth.sessions.query())[0]!;
    await laptop.client.auth.revokeSession.mutate({ id: own.id });
    expect(laptop.jar.has(SESSION_COOKIE)).toBe(false);
    expect(await laptop.client.auth.me.query()).toBeNull();
    expect(await trail('auth.session_revoked', `user:${id}`)).toEqual([{ user_id: id, detail: { method: 'password', current: true } }]);
  });

  it("someone else's session, an unknown one and a malformed id are refused, and nothing changes", async () => {
    const mine = await signIn((await addPerson()).email);
    const theirs = await signIn((await addPerson()).email);
    const theirId = (await theirs.client.auth.sessions.query())[0]!.id;

    await expect(mine.client.auth.revokeSession.mutate({ id: theirId })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
    await expect(mine.client.auth.revokeSession.mutate({ id: '3f2b8a4e-1c2d-4e5f-9a6b-7c8d9e0f1a2b' })).rejects.toMatchObject({
      data: { code: 'NOT_FOUND' },
    });
    const malformed = mine.client.auth.revokeSession.mutate({ id: 'not-a-session' });
    await expect(malformed).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
    await expect(malformed).rejects.toThrow(/not a session id/);
    expect((await theirs.client.auth.me.query())?.id).toBeTypeOf('number');
    expect(await theirs.client.auth.sessions.query()).toHaveLength(1);
  });

  it('last active is refreshed at most once a minute, not written on every request', async () => {
    const { id, email } = await addPerson();
    const laptop = await signIn(email);
    const lastSeen = async () =>
      (await sql<{ t: Date }>(db(), 'SELECT last_seen_at AS t FROM sessions WHERE user_id = $1', [id]))[0]!.t.getTime();
    const signedInAt = await lastSeen();
    await laptop.client.auth.me.query();
    await laptop.client.auth.sessions.query();
    expect(await lastSeen()).toBe(signedInAt);

    // The clock moved on, but less than a minute: still no write.
    expect(await findSessionUser(laptop.token, SESSION_SECRET, new Date(signedInAt + LAST_SEEN_EVERY_MS - 1_000))).not.toBeNull();
    expect(await lastSeen()).toBe(signedInAt);
    // A minute on: written once, with the time of that request.
    const later = signedInAt + LAST_SEEN_EVERY_MS + 5_000;
    await findSessionUser(laptop.token, SESSION_SECRET, new Date(later));
    expect(await lastSeen()).toBe(later);
    expect((await laptop.client.auth.sessions.query())[0]!.lastSeenAt.getTime()).toBe(later);
  });
});

describe("a director and someone's sessions", () => {
  it('lists them and ends them all: every cookie refused, live streams ended, the trail counts them', async () => {
    const { id, email } = await addPerson();
    const laptop = await signIn(email, LAPTOP);
    const phone = await signIn(email, PHONE);
    const stream = await openStream(laptop.cookie);

    const listed = await live.director.users.sessions.query({ userId: id });
    expect(listed.map((s) => [s.userAgent, s.current])).toEqual(
      expect.arrayContaining([
        [LAPTOP, false],
        [PHONE, false],
      ]),
    );
    expect(await live.director.users.endSessions.mutate({ userId: id })).toEqual({ sessionsEnded: 2 });
    expect(await endsWithin(stream, 1_000)).toBe('ended');
    stream.close();
    expect(await laptop.client.auth.me.query()).toBeNull();
    expect(await phone.client.auth.me.query()).toBeNull();
    expect(await live.director.users.sessions.query({ userId: id })).toEqual([]);
    const deeId = (await live.director.auth.me.query())!.id;
    expect(await trail('user.sessions_ended', `user:${id}`)).toEqual([{ user_id: deeId, detail: { sessionsEnded: 2 } }]);
    // They can sign in again: signed out, not shut out.
    expect((await (await signIn(email)).client.auth.me.query())?.id).toBe(id);
  });

  it('a director ending their own sessions is signed out too, the cookie cleared', async () => {
    const { id, email } = await addPerson('director');
    const ana = await signIn(email);
    expect((await ana.client.users.sessions.query({ userId: id })).map((s) => s.current)).toEqual([true]);
    expect(await ana.client.users.endSessions.mutate({ userId: id })).toEqual({ sessionsEnded: 1 });
    expect(ana.jar.has(SESSION_COOKIE)).toBe(false);
    expect(await ana.client.auth.me.query()).toBeNull();
  });

  it('a director screened from a matter may still end sessions: it takes nobody across a wall', async () => {
    const screened = await addPerson('director');
    const clientId = (await live.director.clients.create.mutate({ name: 'Walled Client', phone: '+447700955501' })).id;
    await live.director.access.screen.mutate({ clientId, userId: screened.id, reason: 'Acted for the other side' });
    const dana = await signIn(screened.email);
    const { email } = await addPerson();
    const target = await signIn(email);
    expect(await dana.client.users.endSessions.mutate({ userId: (await target.client.auth.me.query())!.id })).toEqual({ sessionsEnded: 1 });
    expect(await target.client.auth.me.query()).toBeNull();
  });

  it('an unknown person is NOT_FOUND; staff may do neither (FORBIDDEN)', async () => {
    await expect(live.director.users.endSessions.mutate({ userId: 999_999 })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
    const { id } = await addPerson();
    await expect(live.staff.users.sessions.query({ userId: id })).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    await expect(live.staff.users.endSessions.mutate({ userId: id })).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
  });
});

describe('a changed password', () => {
  it('ends every other session of the person at once, their open pages too; the one in use stays; audited', async () => {
    const { id, email } = await addPerson();
    const laptop = await signIn(email, LAPTOP);
    const phone = await signIn(email, PHONE);
    const stream = await openStream(phone.cookie);

    const { sessionsEnded } = await laptop.client.auth.changePassword.mutate({
      currentPassword: 'first-password',
      newPassword: 'a second password',
    });
    expect(sessionsEnded).toBe(1);
    expect(await endsWithin(stream, 1_000)).toBe('ended');
    stream.close();
    expect(await phone.client.auth.me.query()).toBeNull();
    expect((await laptop.client.auth.sessions.query()).map((s) => s.current)).toEqual([true]);
    expect(await trail('auth.password_change', `user:${id}`)).toEqual([{ user_id: id, detail: { sessionsEnded: 1 } }]);
    // The new password signs in; the old one no longer does.
    await signIn(email, PHONE, 'a second password');
    await expect(signIn(email, PHONE, 'first-password')).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
  });

  it('needs the current password, and a new one that keeps the rule; a refusal changes nothing', async () => {
    const { email } = await addPerson();
    const laptop = await signIn(email, LAPTOP);
    const phone = await signIn(email, PHONE);
    await expect(
      laptop.client.auth.changePassword.mutate({ currentPassword: 'not-my-password', newPassword: 'a second password' }),
    ).rejects.toMatchObject({ data: { code: 'BAD_REQUEST', fieldErrors: { currentPassword: ['Your current password is not right.'] } } });
    await expect(
      laptop.client.auth.changePassword.mutate({ currentPassword: 'first-password', newPassword: 'short' }),
    ).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST', fieldErrors: { newPassword: ['Password is too short — 10 characters at least'] } },
    });
    expect(await phone.client.auth.me.query()).not.toBeNull();
    await signIn(email, PHONE, 'first-password');
  });
});
