import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { enrolTotp } from '../support/mfa';
import { sql } from '../support/sql';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { failureOf } from '../support/trpc-failure';

// Enrol first: a person the firm's policy covers who has no second factor can do nothing but set one
// up (and leave) once signed in. Real HTTP, a real database.

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());
afterEach(() => sql(server.databaseUrl, 'DELETE FROM security_policy'));

const requireMfa = (policy: 'directors' | 'everyone') =>
  sql(
    server.databaseUrl,
    `INSERT INTO security_policy (require_mfa, session_idle_minutes, session_max_hours) VALUES ($1, 10080, 168)
     ON CONFLICT (singleton) DO UPDATE SET require_mfa = excluded.require_mfa`,
    [policy],
  );

let people = 0;
async function person(role: 'director' | 'staff') {
  const email = `enrol${++people}@firm.test`;
  await createUser({ email, name: `Enrol ${people}`, role, password: `password-${people}-long` });
  const session = createHttpClient(server.url);
  await session.client.auth.signIn.mutate({ email, password: `password-${people}-long` });
  return { ...session, cookie: () => `${SESSION_COOKIE}=${session.jar.get(SESSION_COOKIE)}` };
}

const refusalOf = async (call: Promise<unknown>) => {
  const error = await failureOf(call);
  return { code: error.data?.code, enrol: (error.data as { enrol?: boolean } | undefined)?.enrol, message: error.message };
};
const HELD = {
  code: 'FORBIDDEN',
  enrol: true,
  message: 'Your firm requires two-step sign-in: set up an authenticator app or a passkey first.',
};

describe("the firm's policy", () => {
  it("'directors': a director without a factor can only enrol, then everything; staff are unaffected", async () => {
    const dee = await person('director');
    const sam = await person('staff');
    await requireMfa('directors');

    expect(await dee.client.auth.me.query()).toMatchObject({ mustEnrol: true });
    expect(await refusalOf(dee.client.inbox.threads.query({}))).toEqual(HELD);
    expect(await refusalOf(dee.client.users.list.query())).toEqual(HELD);
    const files = await fetch(`${server.url}/api/export/client/1.json`, { headers: { cookie: dee.cookie() } });
    expect(files.status).toBe(403);
    // What enrolling and leaving need stays open.
    expect(await dee.client.settings.security.query()).toMatchObject({ requireMfa: 'directors' });
    expect(await dee.client.auth.sessions.query()).toHaveLength(1);
    expect((await dee.client.auth.mfa.status.query()).totp).toBe(false);

    await enrolTotp(dee.client);
    expect(await dee.client.auth.me.query()).toMatchObject({ mustEnrol: false });
    expect((await dee.client.users.list.query()).length).toBeGreaterThan(1);
    expect((await dee.client.inbox.threads.query({})).threads).toBeInstanceOf(Array);

    expect(await sam.client.auth.me.query()).toMatchObject({ mustEnrol: false });
    expect((await sam.client.inbox.threads.query({})).threads).toBeInstanceOf(Array);
  });

  it("'everyone' covers staff too; signing out stays open", async () => {
    const sam = await person('staff');
    await requireMfa('everyone');
    expect(await refusalOf(sam.client.inbox.threads.query({}))).toEqual(HELD);
    expect(await sam.client.auth.signOut.mutate()).toEqual({ ok: true });
    expect(await sam.client.auth.me.query()).toBeNull();
  });
});
