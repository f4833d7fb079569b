import { expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../server/auth/sessions';
import { signInThroughProvider, useOidcApp } from '../support/oidc-test-provider';
import { match } from '../support/matchers';
import { sql } from '../support/sql';

// OIDC_CREATE_ACCOUNTS=staff: a verified email with no account gets a staff account on its first
// sign-in, whatever role the provider claims (roles never come from the provider).
const app = useOidcApp({ OIDC_CREATE_ACCOUNTS: 'staff' });
const provider = app.provider;
const server = app.server;

it('someone unknown signs in as a new member of staff, never a director, named as the provider names them', async () => {
  provider().accounts.set('newcomer', { email: 'Nia.New@Firm.Test', email_verified: true, name: 'Nia Newcomer', role: 'director' });
  const answer = await signInThroughProvider(server().url, provider(), { accountId: 'newcomer', amr: ['pwd'] });
  expect(answer.location).toBe('/');
  expect(answer.app.get(SESSION_COOKIE)).toBeTruthy();
  const users = await sql<{ id: number; name: string; role: string }>(
    server().databaseUrl,
    'SELECT id, name, role FROM users WHERE email = $1',
    ['nia.new@firm.test'],
  );
  expect(users).toEqual([{ id: match.any(Number), name: 'Nia Newcomer', role: 'staff' }]);
  const added = await sql<{ user_id: number | null; detail: unknown }>(
    server().databaseUrl,
    "SELECT user_id, detail FROM audit_events WHERE action = 'user.add' AND subject = $1",
    [`user:${users[0]!.id}`],
  );
  expect(added).toEqual([{ user_id: null, detail: { email: 'nia.new@firm.test', role: 'staff' } }]);
  // The next sign-in finds the same account.
  await signInThroughProvider(server().url, provider(), { accountId: 'newcomer', amr: ['pwd'] });
  expect(await sql(server().databaseUrl, 'SELECT 1 FROM users WHERE email = $1', ['nia.new@firm.test'])).toHaveLength(1);
  // An unverified email is still refused, and makes nobody.
  provider().accounts.set('unverified', { email: 'uma@firm.test', email_verified: false, name: 'Uma' });
  expect((await signInThroughProvider(server().url, provider(), { accountId: 'unverified', amr: ['pwd'] })).location).toBe(
    '/sign-in?sso_error=unverified_email',
  );
  expect(await sql(server().databaseUrl, 'SELECT 1 FROM users WHERE email = $1', ['uma@firm.test'])).toEqual([]);
});
