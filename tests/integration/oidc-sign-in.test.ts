import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { signInThroughProvider, useOidcApp } from '../support/oidc-test-provider';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';

// Single sign-on against a real OpenID provider (oidc-provider) started here: GET /api/auth/oidc/start
// and /callback, code flow with PKCE, state and nonce. Over real HTTP, on a real database.
const app = useOidcApp({ OIDC_ALLOWED_DOMAINS: 'firm.test, Partner.Example' });
const provider = app.provider;
const server = app.server;

const db = () => server().databaseUrl;
let people = 0;

/** A person with an account here and at the provider (the same email). */
async function person(options: { verified?: boolean; domain?: string; account?: boolean } = {}) {
  const email = `person${++people}@${options.domain ?? 'firm.test'}`;
  provider().accounts.set(`idp-${people}`, { email, email_verified: options.verified ?? true, name: `Person ${people}` });
  const user =
    options.account === false ? null : await createUser({ email, name: `Person ${people}`, role: 'staff', password: 'first-password' });
  return { accountId: `idp-${people}`, email, userId: user?.id ?? null };
}

const trail = (action: string, subject: string) =>
  sql<{ user_id: number | null; detail: Record<string, unknown> }>(
    db(),
    'SELECT user_id, detail FROM audit_events WHERE action = $1 AND subject = $2 ORDER BY id',
    [action, subject],
  );
const sessionsOf = (userId: number) => sql<{ method: string }>(db(), 'SELECT method FROM sessions WHERE user_id = $1', [userId]);

describe('single sign-on', () => {
  it('the health answer says SSO is on; signing in through the provider makes an oidc session, audited', async () => {
    expect(await (await fetch(`${server().url}/api/health`)).json()).toMatchObject({ sso: true });
    const { accountId, email, userId } = await person({ domain: 'partner.example' });
    const answer = await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd'] });
    expect(answer).toMatchObject({ status: 302, location: '/' });
    const token = answer.app.get(SESSION_COOKIE)!;
    expect(token).toBeTruthy();
    const browser = createHttpClient(server().url);
    browser.jar.set(SESSION_COOKIE, token);
    expect(await browser.client.auth.me.query()).toMatchObject({ id: userId, email });
    expect((await browser.client.auth.sessions.query()).map((s) => s.method)).toEqual(['oidc']);
    expect(await trail('auth.sign_in', `user:${userId}`)).toEqual([{ user_id: userId, detail: { method: 'oidc' } }]);
  });

  it('an email the provider has not verified is refused, and the trail says why', async () => {
    const { accountId, email, userId } = await person({ verified: false });
    const answer = await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd'] });
    expect(answer).toMatchObject({ status: 302, location: '/sign-in?sso_error=unverified_email' });
    expect(answer.app.get(SESSION_COOKIE)).toBeUndefined();
    expect(await sessionsOf(userId!)).toEqual([]);
    expect(await trail('auth.sign_in_failed', `email:${email}`)).toEqual([
      { user_id: null, detail: { email, reason: 'sso_unverified_email' } },
    ]);
  });

  it('an Entra ID answer (no email_verified, xms_edov true) counts as verified; xms_edov false does not', async () => {
    const { accountId, userId } = await person();
    const entra = provider().accounts.get(accountId)!;
    provider().accounts.set(accountId, { email: entra.email, name: entra.name, xms_edov: true });
    expect((await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd', 'mfa'] })).location).toBe('/');
    expect(await sessionsOf(userId!)).toEqual([{ method: 'oidc' }]);
    provider().accounts.set(accountId, { email: entra.email, name: entra.name, xms_edov: false });
    expect((await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd', 'mfa'] })).location).toBe(
      '/sign-in?sso_error=unverified_email',
    );
  });

  it('an email of a domain not allowed is refused, even with an account', async () => {
    const { accountId, email, userId } = await person({ domain: 'elsewhere.example' });
    const answer = await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd'] });
    expect(answer.location).toBe('/sign-in?sso_error=domain_not_allowed');
    expect(await sessionsOf(userId!)).toEqual([]);
    expect((await trail('auth.sign_in_failed', `email:${email}`))[0]!.detail.reason).toBe('sso_domain_not_allowed');
  });

  it('someone with no account is refused, and none is made (OIDC_CREATE_ACCOUNTS unset)', async () => {
    const { accountId, email } = await person({ account: false });
    const answer = await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd'] });
    expect(answer.location).toBe('/sign-in?sso_error=no_account');
    expect(await sql(db(), 'SELECT 1 FROM users WHERE email = $1', [email])).toEqual([]);
  });

  it('a deactivated person is refused', async () => {
    const { accountId, email, userId } = await person();
    await sql(db(), 'UPDATE users SET deactivated_at = now() WHERE id = $1', [userId]);
    const answer = await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd', 'mfa'] });
    expect(answer.location).toBe('/sign-in?sso_error=deactivated');
    expect(await sessionsOf(userId!)).toEqual([]);
    expect((await trail('auth.sign_in_failed', `email:${email}`))[0]!.detail.reason).toBe('deactivated');
  });

  it('a person with a second factor is still asked for it when the provider’s amr shows none; not when it shows mfa', async () => {
    const { accountId, userId } = await person();
    await sql(db(), "INSERT INTO totp_factors (user_id, sealed_secret, confirmed_at) VALUES ($1, 'sealed', now())", [userId]);
    const withPassword = await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd'] });
    expect(withPassword.location).toMatch(/^\/sign-in#mfa=[A-Za-z0-9_-]{43}&methods=totp$/);
    expect(withPassword.app.get(SESSION_COOKIE)).toBeUndefined();
    expect(await sessionsOf(userId!)).toEqual([]);
    const [ticket] = await sql<{ first_method: string }>(db(), 'SELECT first_method FROM sign_in_tickets WHERE user_id = $1', [userId]);
    expect(ticket).toEqual({ first_method: 'oidc' });

    const withMfa = await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd', 'mfa'] });
    expect(withMfa.location).toBe('/');
    expect(await sessionsOf(userId!)).toEqual([{ method: 'oidc' }]);
  });

  it('an answer whose state was changed on the way is refused', async () => {
    const { accountId, userId } = await person();
    const answer = await signInThroughProvider(server().url, provider(), { accountId, amr: ['pwd'] }, (callback) =>
      callback.searchParams.set('state', 'forged-state-value'),
    );
    expect(answer.location).toBe('/sign-in?sso_error=failed');
    expect(await sessionsOf(userId!)).toEqual([]);
    // A callback with no sign-in begun in this browser (no sealed state) is refused as well.
    const bare = await fetch(`${server().url}/api/auth/oidc/callback?code=abc&state=def`, { redirect: 'manual' });
    expect(bare.headers.get('location')).toBe('/sign-in?sso_error=failed');
  });
});
