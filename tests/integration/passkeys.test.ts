import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { sql } from '../support/sql';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';

// Passkeys (auth.passkeys): added in Settings and used to sign in alone, over real HTTP on a real
// database, answered by a software authenticator with real ES256 signatures.
const SITE = 'https://chat.firm.example';
let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({ NEXT_PUBLIC_SITE_URL: SITE, SESSION_SECRET: 'test-session-secret-0123456789abcdef' });
});
afterAll(() => server?.stop());

let people = 0;
type TClient = ReturnType<typeof createHttpClient>;

/** A new person, signed in with their password in a browser of their own. */
async function newPerson(): Promise<TClient & { id: number; email: string }> {
  const email = `passkey${++people}@firm.test`;
  const user = await createUser({ email, name: `Person ${people}`, role: 'staff', password: 'person-password' });
  const browser = createHttpClient(server.url);
  await browser.client.auth.signIn.mutate({ email, password: 'person-password' });
  return { ...browser, id: user.id, email };
}

async function addPasskey(browser: TClient, authenticator: SoftAuthenticator, name?: string) {
  const options = await browser.client.auth.passkeys.registrationOptions.mutate();
  return browser.client.auth.passkeys.register.mutate({ response: authenticator.register(options), name });
}

/** A browser with no session asks for options and answers them with `authenticator`. */
async function passkeySignIn(authenticator: SoftAuthenticator, overrides: Parameters<SoftAuthenticator['assert']>[1] = {}) {
  const browser = createHttpClient(server.url);
  const options = await browser.client.auth.passkeys.signInOptions.mutate();
  const result = await browser.client.auth.passkeys.signIn.mutate({ response: authenticator.assert(options, overrides) });
  return { ...browser, result };
}

const trail = (action: string, userId: number) =>
  sql<{ detail: unknown }>(server.databaseUrl, 'SELECT detail FROM audit_events WHERE action = $1 AND subject = $2 ORDER BY id', [
    action,
    `user:${userId}`,
  ]);

describe('adding a passkey', () => {
  it('registers one for the site, lists it, audits it, and the options exclude the ones already added', async () => {
    const person = await newPerson();
    const authenticator = new SoftAuthenticator(SITE);
    const options = await person.client.auth.passkeys.registrationOptions.mutate();
    expect(options.rp).toEqual({ id: 'chat.firm.example', name: 'Firm Chat' });
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'preferred', userVerification: 'required' });
    expect(options.excludeCredentials).toEqual([]);

    const item = await person.client.auth.passkeys.register.mutate({ response: authenticator.register(options), name: 'Work laptop' });
    expect(item).toMatchObject({ name: 'Work laptop', lastUsedAt: null });
    expect(await person.client.auth.passkeys.list.query()).toEqual([item]);
    expect(await trail('auth.passkey_add', person.id)).toEqual([{ detail: { passkeyId: item.id, name: 'Work laptop' } }]);

    const again = await person.client.auth.passkeys.registrationOptions.mutate();
    expect(again.excludeCredentials?.map((c) => c.id)).toEqual([authenticator.credentials[0]!.id.toString('base64url')]);
    // Unnamed, it is numbered.
    expect((await addPasskey(person, new SoftAuthenticator(SITE))).name).toBe('Passkey 2');
  });

  it('refuses an answer made for another site, or to a challenge it did not issue to this person', async () => {
    const person = await newPerson();
    const other = await newPerson();
    const options = await person.client.auth.passkeys.registrationOptions.mutate();
    const elsewhere = new SoftAuthenticator('https://evil.example').register(options);
    await expect(person.client.auth.passkeys.register.mutate({ response: elsewhere })).rejects.toThrow(/could not be verified/);
    // That challenge is spent; and another person's challenge is not this person's.
    const spent = new SoftAuthenticator(SITE).register(options);
    await expect(person.client.auth.passkeys.register.mutate({ response: spent })).rejects.toThrow(/expired or was already used/);
    const theirs = await other.client.auth.passkeys.registrationOptions.mutate();
    await expect(person.client.auth.passkeys.register.mutate({ response: new SoftAuthenticator(SITE).register(theirs) })).rejects.toThrow(
      /expired or was already used/,
    );
    expect(await person.client.auth.passkeys.list.query()).toEqual([]);
  });
});

describe('signing in with a passkey alone', () => {
  it('signs in with a session whose method is passkey, audited so, and the options name no account', async () => {
    const person = await newPerson();
    const authenticator = new SoftAuthenticator(SITE);
    await addPasskey(person, authenticator);

    const anonymous = createHttpClient(server.url);
    const options = await anonymous.client.auth.passkeys.signInOptions.mutate();
    expect(options.rpId).toBe('chat.firm.example');
    expect(options.userVerification).toBe('required');
    expect(options.allowCredentials ?? []).toEqual([]);
    const { result } = await anonymous.client.auth.passkeys.signIn
      .mutate({ response: authenticator.assert(options) })
      .then((result) => ({ result }));
    expect(result.user).toMatchObject({ id: person.id, email: person.email });
    expect(anonymous.jar.get(SESSION_COOKIE)).toBeTruthy();
    expect((await anonymous.client.auth.me.query())?.id).toBe(person.id);
    const sessions = await anonymous.client.auth.sessions.query();
    expect(sessions.find((s) => s.current)?.method).toBe('passkey');
    expect((await trail('auth.sign_in', person.id)).map((e) => e.detail)).toContainEqual({ method: 'passkey' });
    expect((await person.client.auth.passkeys.list.query())[0]!.lastUsedAt).toBeInstanceOf(Date);
  });

  it('refuses a wrong challenge, a reused one, another origin, a tampered signature and no user verification', async () => {
    const person = await newPerson();
    const authenticator = new SoftAuthenticator(SITE);
    await addPasskey(person, authenticator);
    const browser = createHttpClient(server.url);
    const signIn = (response: unknown) => browser.client.auth.passkeys.signIn.mutate({ response } as never);

    // A challenge the server never issued.
    await browser.client.auth.passkeys.signInOptions.mutate();
    const unissued = signIn(authenticator.assert({ challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmVy' }));
    await expect(unissued).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    await expect(unissued).rejects.toThrow(/expired or was already used/);
    // One answer used twice: the second finds its challenge spent.
    const options = await browser.client.auth.passkeys.signInOptions.mutate();
    const answer = authenticator.assert(options);
    await signIn(answer);
    await expect(signIn(answer)).rejects.toThrow(/expired or was already used/);
    // Another site's page asking (the origin), a bit flipped in the signature, no user verification.
    for (const overrides of [{ origin: 'https://evil.example' }, { tamper: true }, { userVerified: false }]) {
      const fresh = await browser.client.auth.passkeys.signInOptions.mutate();
      await expect(signIn(authenticator.assert(fresh, overrides))).rejects.toMatchObject({
        data: { code: 'UNAUTHORIZED' },
        message: 'The passkey could not be verified. Try again.',
      });
    }
    expect((await trail('auth.sign_in', person.id)).filter((e) => (e.detail as { method?: string }).method === 'passkey')).toHaveLength(1);
  });

  it('refuses a count that goes back (a cloned key) when the authenticator keeps one', async () => {
    const person = await newPerson();
    const authenticator = new SoftAuthenticator(SITE, true);
    await addPasskey(person, authenticator);
    await passkeySignIn(authenticator);
    await passkeySignIn(authenticator);
    await expect(passkeySignIn(authenticator, { counter: 1 })).rejects.toThrow(/could not be verified/);
    const [stored] = await sql<{ counter: number }>(server.databaseUrl, 'SELECT counter FROM passkeys WHERE user_id = $1', [person.id]);
    expect(Number(stored!.counter)).toBe(2);
    // One that keeps none (always 0) signs in again and again.
    const zero = new SoftAuthenticator(SITE, false);
    await addPasskey(person, zero);
    await passkeySignIn(zero);
    expect((await passkeySignIn(zero)).result.user.id).toBe(person.id);
  });

  it('refuses a passkey that is not registered, and a deactivated person', async () => {
    const person = await newPerson();
    const authenticator = new SoftAuthenticator(SITE);
    await addPasskey(person, authenticator);
    const stranger = new SoftAuthenticator(SITE);
    stranger.register({ challenge: 'eA', rp: { id: 'chat.firm.example' }, user: { id: 'MQ' } });
    await expect(passkeySignIn(stranger)).rejects.toThrow(/not registered with Firm Chat/);

    await sql(server.databaseUrl, 'UPDATE users SET deactivated_at = now() WHERE id = $1', [person.id]);
    await expect(passkeySignIn(authenticator)).rejects.toThrow(/deactivated/);
  });
});

describe('removing a passkey', () => {
  it("ends the person's other sessions and keeps the one in use; audited", async () => {
    const person = await newPerson();
    const authenticator = new SoftAuthenticator(SITE);
    const item = await addPasskey(person, authenticator, 'Phone');
    const phone = await passkeySignIn(authenticator);
    expect(await person.client.auth.passkeys.remove.mutate({ id: item.id })).toEqual({ sessionsEnded: 1 });
    expect(await phone.client.auth.me.query()).toBeNull();
    expect((await person.client.auth.me.query())?.id).toBe(person.id);
    expect(await person.client.auth.passkeys.list.query()).toEqual([]);
    expect(await trail('auth.passkey_remove', person.id)).toEqual([{ detail: { passkeyId: item.id, name: 'Phone', sessionsEnded: 1 } }]);
    // The removed passkey signs in no more.
    await expect(passkeySignIn(authenticator)).rejects.toThrow(/not registered with Firm Chat/);
  });

  it("someone else's passkey is NOT_FOUND, and stays", async () => {
    const owner = await newPerson();
    const other = await newPerson();
    const item = await addPasskey(owner, new SoftAuthenticator(SITE));
    await expect(other.client.auth.passkeys.remove.mutate({ id: item.id })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
    expect(await owner.client.auth.passkeys.list.query()).toHaveLength(1);
    expect(await trail('auth.passkey_remove', other.id)).toEqual([]);
  });
});
