import { afterAll, beforeAll, expect, it } from 'vitest';
import { User } from '../../server/core/db/models/index';
import { createUser } from '../../server/auth/users';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { createHttpClient } from '../support/test-server';
import { match } from '../support/matchers';

// The audit trail (server/decisions/0012-append-only-audit-trail.md): who did what, when, from which address; directors read it.
let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());

it('records sign-ins, failed sign-ins (email only), sign-outs, connection checks and new users, with who and from where', async () => {
  const other = createHttpClient(live.server.url).client;
  await expect(other.auth.signIn.mutate({ email: 'Sam@firm.test', password: 'wrong-password' })).rejects.toThrow(/incorrect/);
  await other.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  await other.auth.signOut.mutate();
  await live.director.settings.checkConnection.mutate();
  await createUser({ email: 'new@firm.test', name: 'New Starter', role: 'staff', password: 'a long enough password' });

  const sam = (await User.findOne({ where: { email: 'sam@firm.test' } }))!;
  const dee = (await User.findOne({ where: { email: 'dee@firm.test' } }))!;
  const { items } = await live.director.audit.list.query({ limit: 6 });
  expect(items.map((e) => [e.action, e.user?.name ?? null, e.subject])).toEqual([
    ['user.add', null, match.stringMatching(/^user:\d+$/)],
    ['settings.check_connection', 'Dee Director', 'provider'],
    ['auth.sign_out', 'Sam Staff', `user:${sam.id}`],
    ['auth.sign_in', 'Sam Staff', `user:${sam.id}`],
    ['auth.sign_in_failed', null, 'email:sam@firm.test'],
    ['auth.sign_in', 'Dee Director', `user:${dee.id}`],
  ]);
  expect(items[0]!.detail).toEqual({ email: 'new@firm.test', role: 'staff' });
  expect(items[1]!.detail).toEqual({ status: 'Live' });
  expect(items[4]!.detail).toEqual({ email: 'sam@firm.test' });
  expect(items[3]!.ip).toMatch(/127\.0\.0\.1/);
  // Never a password, not even a wrong one.
  expect(JSON.stringify(items)).not.toMatch(/wrong-password|staff-password/);
});

it('filters by action and by user, and pages with before (newest first, no overlap)', async () => {
  const sam = (await User.findOne({ where: { email: 'sam@firm.test' } }))!;
  const signIns = await live.director.audit.list.query({ action: 'auth.sign_in' });
  expect(signIns.items.length).toBeGreaterThanOrEqual(3);
  expect(signIns.items.every((e) => e.action === 'auth.sign_in')).toBe(true);
  const bySam = await live.director.audit.list.query({ userId: sam.id });
  expect(bySam.items.every((e) => e.user?.id === sam.id)).toBe(true);

  const first = await live.director.audit.list.query({ limit: 2 });
  expect(first.nextBefore).toBe(first.items[1]!.id);
  const second = await live.director.audit.list.query({ limit: 2, before: first.nextBefore! });
  expect(second.items[0]!.id).toBeLessThan(first.items[1]!.id);
  const all = await live.director.audit.list.query({ limit: 200 });
  expect(all.nextBefore).toBeNull();
  expect(all.items.map((e) => e.id)).toEqual([...all.items.map((e) => e.id)].sort((a, b) => b - a));
});

it('staff are refused by the server, not only by a hidden screen', async () => {
  await expect(live.staff.audit.list.query({})).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
});
