import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../server/auth/sessions';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { endsWithin, isConnected, openLiveStream } from '../support/live-stream';
import { match } from '../support/matchers';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';
import { failureOf } from '../support/trpc-failure';

// The firm's sign-in policy (settings.security, settings.setSecurity): idle and absolute session
// limits enforced on every request and in the lists, and a session ended anywhere ending its open
// pages' live streams at once. Over real HTTP, on a real database.
let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(async () => {
  await sql(live.server.databaseUrl, 'DELETE FROM security_policy');
  await live?.stop();
});

const db = () => live.server.databaseUrl;
let people = 0;

async function signedInPerson() {
  const email = `policy${++people}@firm.test`;
  const { user } = await live.director.users.add.mutate({ name: `Policy ${people}`, email, role: 'staff', password: 'first-password' });
  const session = createHttpClient(live.server.url);
  await session.client.auth.signIn.mutate({ email, password: 'first-password' });
  const token = session.jar.get(SESSION_COOKIE)!;
  return { ...session, id: user.id, cookie: `${SESSION_COOKIE}=${token}` };
}

describe('the policy itself', () => {
  it('starts at the defaults; a director changes it, audited with what changed, by the app and by the database', async () => {
    expect(await live.staff.settings.security.query()).toMatchObject({
      requireMfa: 'none',
      sessionIdleMinutes: 10_080,
      sessionMaxHours: 168,
      updatedBy: null,
    });
    const saved = await live.director.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 30, sessionMaxHours: 12 });
    expect(saved).toMatchObject({ sessionIdleMinutes: 30, sessionMaxHours: 12, updatedBy: { name: match.any(String) } });
    const [event] = await sql<{ detail: unknown }>(
      db(),
      "SELECT detail FROM audit_events WHERE action = 'settings.security' ORDER BY id DESC LIMIT 1",
    );
    expect(event!.detail).toEqual({ sessionIdleMinutes: { from: 10_080, to: 30 }, sessionMaxHours: { from: 168, to: 12 } });
    const [change] = await sql<{ detail: { table: string; appEventId: number | null } }>(
      db(),
      "SELECT detail FROM audit_events WHERE action = 'db.change' AND subject = 'security_policy' ORDER BY id DESC LIMIT 1",
    );
    expect(change!.detail).toMatchObject({ table: 'security_policy', appEventId: match.any(Number) });
    await live.director.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 10_080, sessionMaxHours: 168 });
  });

  it('only a director may change it; out-of-range limits are refused with a clear reason, and nothing changes', async () => {
    const staff = await failureOf(
      live.staff.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 30, sessionMaxHours: 12 }),
    );
    expect(staff.data?.code).toBe('FORBIDDEN');
    const bad = await failureOf(
      live.director.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 2, sessionMaxHours: 500 }),
    );
    expect(bad.data?.fieldErrors).toMatchObject({
      sessionIdleMinutes: ['At least 5 minutes'],
      sessionMaxHours: ['At most a week (168 hours)'],
    });
    expect(await live.staff.settings.security.query()).toMatchObject({ sessionIdleMinutes: 10_080, sessionMaxHours: 168 });
  });
});

describe('session limits', () => {
  it('a session idle longer than the policy allows is over: refused, and gone from the list', async () => {
    await live.director.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 15, sessionMaxHours: 168 });
    const person = await signedInPerson();
    const fresh = await signedInPerson();
    expect(await person.client.auth.me.query()).not.toBeNull();
    await sql(db(), "UPDATE sessions SET last_seen_at = now() - interval '16 minutes' WHERE user_id = $1", [person.id]);
    expect(await person.client.auth.me.query()).toBeNull();
    expect((await failureOf(person.client.auth.sessions.query())).data?.code).toBe('UNAUTHORIZED');
    expect(await fresh.client.auth.me.query()).not.toBeNull();
    expect(await live.director.users.sessions.query({ userId: person.id })).toEqual([]);
    expect(await live.director.users.sessions.query({ userId: fresh.id })).toHaveLength(1);
    await live.director.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 10_080, sessionMaxHours: 168 });
  });

  it('a session older than the absolute limit is over however busy it was', async () => {
    const person = await signedInPerson();
    await sql(db(), "UPDATE sessions SET created_at = now() - interval '3 hours' WHERE user_id = $1", [person.id]);
    expect(await person.client.auth.me.query()).not.toBeNull();
    await live.director.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 10_080, sessionMaxHours: 2 });
    expect(await person.client.auth.me.query()).toBeNull();
    expect(await live.director.users.sessions.query({ userId: person.id })).toEqual([]);
    await live.director.settings.setSecurity.mutate({ requireMfa: 'none', sessionIdleMinutes: 10_080, sessionMaxHours: 168 });
  });
});

describe('open pages', () => {
  it('a session deleted anywhere (another instance, a director) ends its live stream within a second', async () => {
    const person = await signedInPerson();
    const stream = await openLiveStream(live.server.url, person.cookie);
    await stream.waitFor(isConnected);
    // Deleted behind this instance's back, as another instance deletes it: the periodic check is 5 s away.
    await sql(db(), 'DELETE FROM sessions WHERE user_id = $1', [person.id]);
    expect(await endsWithin(stream, 1_000)).toBe('ended');
    stream.close();
  });
});
