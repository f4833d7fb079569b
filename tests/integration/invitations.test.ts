import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITATION_REFUSED, INVITATION_TTL_MS, inviteUser } from '../../server/auth/invitations';
import { SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { match } from '../support/matchers';
import { sql } from '../support/sql';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';

// Directors invite; the person sets their own password through a one-time link and is signed in
// (users.invite, auth.inviteInfo, auth.acceptInvite). Over real HTTP, on a real database.
const SITE = 'https://chat.firm.example';
let server: TTestServer;
let director: ReturnType<typeof createHttpClient>['client'];
let directorId: number;

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET: 'test-session-secret-0123456789abcdef', NEXT_PUBLIC_SITE_URL: SITE });
  directorId = (await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' })).id;
  director = createHttpClient(server.url).client;
  await director.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
});
afterAll(() => server?.stop());

const db = () => server.databaseUrl;
const tokenOf = (inviteUrl: string) => inviteUrl.split('/').at(-1)!;
let people = 0;
const nextEmail = () => `invitee${++people}@firm.test`;

describe('inviting someone', () => {
  it('invite → the person sets a password → signed in as themself; the director never sees a password; audited', async () => {
    const before = Date.now();
    const email = nextEmail();
    const { inviteUrl, expiresAt } = await director.users.invite.mutate({
      name: ' Ivy Invited ',
      email: email.toUpperCase(),
      role: 'staff',
    });
    expect(inviteUrl).toMatch(new RegExp(`^${SITE}/invite/[A-Za-z0-9_-]{43}$`));
    expect(expiresAt.getTime() - before).toBeGreaterThanOrEqual(INVITATION_TTL_MS - 60_000);
    expect(expiresAt.getTime() - before).toBeLessThanOrEqual(INVITATION_TTL_MS + 60_000);
    // Only the token's hash is stored, and no account exists until the person accepts.
    const token = tokenOf(inviteUrl);
    const [stored] = await sql<{ token_hash: string; name: string }>(db(), 'SELECT token_hash, name FROM invitations WHERE email = $1', [
      email,
    ]);
    expect(stored).toMatchObject({ name: 'Ivy Invited' });
    expect(stored!.token_hash).not.toContain(token);
    expect(await sql(db(), 'SELECT 1 FROM users WHERE email = $1', [email])).toEqual([]);
    expect((await director.users.invitations.query()).map((i) => i.email)).toContain(email);

    const browser = createHttpClient(server.url);
    expect(await browser.client.auth.inviteInfo.query({ token })).toMatchObject({ email, name: 'Ivy Invited' });
    const { user } = await browser.client.auth.acceptInvite.mutate({ token, password: 'ivy-own-passphrase' });
    expect(user).toMatchObject({ email, name: 'Ivy Invited', role: 'staff' });
    // Signed in by the same answer, with a password session.
    expect(browser.jar.get(SESSION_COOKIE)).toBeTruthy();
    expect(await browser.client.auth.me.query()).toMatchObject({ id: user.id, role: 'staff' });
    expect((await browser.client.auth.sessions.query()).map((s) => s.method)).toEqual(['password']);
    // Their own password works from then on; the invitation is no longer pending.
    const again = createHttpClient(server.url).client;
    await again.auth.signIn.mutate({ email, password: 'ivy-own-passphrase' });
    expect((await director.users.invitations.query()).map((i) => i.email)).not.toContain(email);

    const events = await sql<{ action: string; user_id: number | null; subject: string; detail: Record<string, unknown> }>(
      db(),
      `SELECT action, user_id, subject, detail FROM audit_events WHERE action IN ('user.invite', 'user.accept') AND (subject = $1 OR subject = $2) ORDER BY id`,
      [`email:${email}`, `user:${user.id}`],
    );
    expect(events).toEqual([
      {
        action: 'user.invite',
        user_id: directorId,
        subject: `email:${email}`,
        detail: { invitationId: match.any(Number), name: 'Ivy Invited', role: 'staff', expiresAt: expiresAt.toISOString() },
      },
      {
        action: 'user.accept',
        user_id: user.id,
        subject: `user:${user.id}`,
        detail: { invitationId: match.any(Number), email, role: 'staff', invitedBy: directorId },
      },
    ]);
    // The database's own row for the new account names the app's event (migration 0033).
    const [change] = await sql<{ detail: { appEventId: number | null } }>(
      db(),
      "SELECT detail FROM audit_events WHERE action = 'db.change' AND subject = $1 AND detail->>'op' = 'insert'",
      [`user:${user.id}`],
    );
    expect(change!.detail.appEventId).toEqual(match.any(Number));
  });

  it('a link used twice, an unknown link and a replaced link are refused with the same answer', async () => {
    const email = nextEmail();
    const first = tokenOf((await director.users.invite.mutate({ name: 'Twice', email, role: 'staff' })).inviteUrl);
    const replacing = tokenOf((await director.users.invite.mutate({ name: 'Twice', email, role: 'director' })).inviteUrl);
    const browser = createHttpClient(server.url).client;
    const refusal = { message: INVITATION_REFUSED, data: { code: 'NOT_FOUND' } };
    await expect(browser.auth.acceptInvite.mutate({ token: first, password: 'a-long-passphrase' })).rejects.toMatchObject(refusal);
    const { user } = await browser.auth.acceptInvite.mutate({ token: replacing, password: 'a-long-passphrase' });
    expect(user.role).toBe('director');
    await expect(
      createHttpClient(server.url).client.auth.acceptInvite.mutate({ token: replacing, password: 'another-passphrase' }),
    ).rejects.toMatchObject(refusal);
    await expect(browser.auth.inviteInfo.query({ token: replacing })).rejects.toMatchObject(refusal);
    await expect(
      browser.auth.acceptInvite.mutate({ token: 'no-such-invitation-token', password: 'a-long-passphrase' }),
    ).rejects.toMatchObject(refusal);
    // Still one account, with the first password set.
    expect(await sql(db(), 'SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(1);
    const [replaced] = await sql<{ detail: Record<string, unknown> }>(
      db(),
      "SELECT detail FROM audit_events WHERE action = 'user.invite' AND subject = $1 ORDER BY id DESC LIMIT 1",
      [`email:${email}`],
    );
    expect(replaced!.detail.replaced).toBe(true);
  });

  it('an expired link is refused (the invitation made 73 hours ago by an injected clock)', async () => {
    const email = nextEmail();
    const past = new Date(Date.now() - 73 * 60 * 60 * 1000);
    const { token } = await inviteUser({ email, name: 'Late Larry', role: 'staff' }, { userId: directorId, ip: null }, past);
    const browser = createHttpClient(server.url).client;
    await expect(browser.auth.inviteInfo.query({ token })).rejects.toMatchObject({ message: INVITATION_REFUSED });
    await expect(browser.auth.acceptInvite.mutate({ token, password: 'a-long-passphrase' })).rejects.toMatchObject({
      message: INVITATION_REFUSED,
    });
    expect(await sql(db(), 'SELECT 1 FROM users WHERE email = $1', [email])).toEqual([]);
  });

  it('staff cannot invite; an email with an account is a CONFLICT; the password follows the app’s rules', async () => {
    await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
    const staff = createHttpClient(server.url).client;
    await staff.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    await expect(staff.users.invite.mutate({ name: 'Nope', email: nextEmail(), role: 'staff' })).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
    await expect(director.users.invite.mutate({ name: 'Sam Again', email: 'SAM@firm.test', role: 'staff' })).rejects.toMatchObject({
      data: { code: 'CONFLICT', fieldErrors: { email: ['Someone already signs in with this email.'] } },
    });
    const token = tokenOf((await director.users.invite.mutate({ name: 'Short', email: nextEmail(), role: 'staff' })).inviteUrl);
    await expect(createHttpClient(server.url).client.auth.acceptInvite.mutate({ token, password: 'short' })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST', fieldErrors: { password: ['Password is too short — 10 characters at least'] } },
    });
  });
});
