import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { User } from '../../server/core/db/models/index';
import { createUser } from '../../server/auth/users';
import { readChainHead } from '../../server/audit/audit-chain';
import { db } from '../../server/core/db/db';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { createHttpClient } from '../support/test-server';
import { match } from '../support/matchers';
import { sql } from '../support/sql';

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
  const { items: newest } = await live.director.audit.list.query({ limit: 7 });
  // The new account is also the database's own entry (a protected table), naming the app's event.
  const [recorded, ...items] = newest;
  expect(recorded).toMatchObject({ action: 'db.change', subject: items[0]!.subject, detail: { table: 'users', op: 'insert' } });
  expect(recorded!.detail.appEventId).toBe(items[0]!.id);
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
  // Why it failed is for the trail's readers; the person was told only "Email or password is incorrect."
  expect(items[4]!.detail).toEqual({ email: 'sam@firm.test', reason: 'wrong_password' });
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

// Names, not ids (client/README.md "A tour of the screens", Audit): each event says what its subject is, read
// in the same query as the walls, so a walled matter's name never reaches the page.
describe('the trail names what each event is about', () => {
  let amelia: number;
  let hartCase: number;
  let zed: number;
  let ivy: ReturnType<typeof createHttpClient>['client'];
  let ivyId: number;
  let samId: number;

  beforeAll(async () => {
    samId = (await User.findOne({ where: { email: 'sam@firm.test' } }))!.id;
    const dee = live.director;
    amelia = (await dee.clients.create.mutate({ name: 'Amelia Hart', phone: '+447700900123' })).id;
    hartCase = (await dee.cases.create.mutate({ clientId: amelia, reference: 'HART-2026-001', title: 'Hart v Northwind Lettings' })).id;
    await dee.clients.addNumber.mutate({ clientId: amelia, phone: '+447700900124' });
    await dee.access.screen.mutate({ caseId: hartCase, userId: samId, reason: 'Acted for Northwind' });
    await dee.inbox.assign.mutate({ clientId: amelia, userId: samId });
    // Ivy is a director screened from Zed: nothing about Zed may reach her, names least of all.
    const ivyUser = await createUser({ email: 'ivy@firm.test', name: 'Ivy Director', role: 'director', password: 'ivy-director-password' });
    ivyId = ivyUser.id;
    zed = (await dee.clients.create.mutate({ name: 'Zedekiah Wallbright', phone: '+447700900999' })).id;
    await dee.clients.addNumber.mutate({ clientId: zed, phone: '+447700900998' });
    await dee.access.screen.mutate({ clientId: zed, userId: ivyId, reason: 'Conflict' });
    ivy = createHttpClient(live.server.url).client;
    await ivy.auth.signIn.mutate({ email: 'ivy@firm.test', password: 'ivy-director-password' });
  });

  it("names a client, a case, a person and an assignment's people, with a link to the client's and the case's page", async () => {
    const { items } = await live.director.audit.list.query({ limit: 200 });
    const numberAdd = items.find((e) => e.action === 'client.number_add' && e.subject === `client:${amelia}`)!;
    expect(numberAdd).toMatchObject({ subjectLabel: 'Amelia Hart', subjectLink: `/clients/${amelia}`, subjectErased: false });
    const screen = items.find((e) => e.action === 'access.screen' && e.subject === `case:${hartCase}`)!;
    expect(screen).toMatchObject({ subjectLabel: 'HART-2026-001 · Hart v Northwind Lettings', subjectLink: `/cases/${hartCase}` });
    const signIn = items.find((e) => e.action === 'auth.sign_in' && e.subject === `user:${samId}`)!;
    expect(signIn).toMatchObject({ subjectLabel: 'Sam Staff', subjectLink: null });
    const assign = items.find((e) => e.action === 'inbox.assign' && e.subject === `client:${amelia}`)!;
    expect(assign.related).toEqual({ to: 'Sam Staff' });
    const failed = items.find((e) => e.action === 'auth.sign_in_failed')!;
    expect(failed).toMatchObject({ subjectLabel: 'sam@firm.test', subjectLink: null });
    const check = items.find((e) => e.action === 'settings.check_connection')!;
    expect(check).toMatchObject({ subjectLabel: null, subjectLink: null, related: {} });
  });

  it('an erased client is named as erased, never by the name it had', async () => {
    const erased = (await live.director.clients.create.mutate({ name: 'Gone Forgotten', phone: '+447700900555' })).id;
    await live.director.clients.addNumber.mutate({ clientId: erased, phone: '+447700900556' });
    await sql(live.server.databaseUrl, 'UPDATE clients SET erased_at = now() WHERE id = $1', [erased]);
    const { items } = await live.director.audit.list.query({ subject: `client:${erased}` });
    expect(items.length).toBeGreaterThan(0);
    for (const item of items)
      expect(item).toMatchObject({ subjectLabel: `Erased client #${erased}`, subjectLink: null, subjectErased: true });
    expect(JSON.stringify(items)).not.toContain('Gone Forgotten');
  });

  it('an event about a matter the reader is walled from is not listed at all, filtered or not', async () => {
    const all = await ivy.audit.list.query({ limit: 200 });
    expect(all.items.filter((e) => e.subject === `client:${zed}`)).toEqual([]);
    expect(JSON.stringify(all)).not.toContain('Zedekiah');
    expect((await ivy.audit.list.query({ subject: `client:${zed}` })).items).toEqual([]);
    // Another director sees them, named.
    const dee = await live.director.audit.list.query({ subject: `client:${zed}` });
    expect(dee.items.map((e) => e.subjectLabel)).toContain('Zedekiah Wallbright');
    // What Ivy may see is still named for her.
    const seen = await ivy.audit.list.query({ subject: `client:${amelia}` });
    expect(seen.items.map((e) => e.subjectLabel)).toContain('Amelia Hart');
  });

  it("filters by subject: a client's events and its cases', nothing else", async () => {
    const { items } = await live.director.audit.list.query({ subject: `client:${amelia}`, limit: 200 });
    expect(new Set(items.map((e) => e.subject))).toEqual(new Set([`client:${amelia}`, `case:${hartCase}`]));
    expect(items.map((e) => e.action)).toEqual(expect.arrayContaining(['client.number_add', 'access.screen', 'inbox.assign']));
    const onCase = await live.director.audit.list.query({ subject: `case:${hartCase}` });
    expect(onCase.items.map((e) => [e.action, e.subject])).toEqual([
      ['db.change', `case:${hartCase}`],
      ['access.screen', `case:${hartCase}`],
    ]);
    const onSam = await live.director.audit.list.query({ subject: `user:${samId}`, action: 'auth.sign_in' });
    expect(onSam.items.length).toBeGreaterThan(0);
    expect(onSam.items.every((e) => e.subject === `user:${samId}`)).toBe(true);
    for (const bad of ['client:abc', 'email:sam@firm.test', "client:1' OR true --", 'client:99999999999'])
      await expect(live.director.audit.list.query({ subject: bad })).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
  });

  it('finds an event by the start of its hash, as a regulator holding a chain head types it', async () => {
    const { items } = await live.director.audit.list.query({ limit: 200 });
    const wanted = items[Math.floor(items.length / 2)]!;
    for (const prefix of [wanted.hash.slice(0, 6), wanted.hash.slice(0, 12).toUpperCase(), wanted.hash]) {
      const found = await live.director.audit.list.query({ hash: prefix });
      expect(found.items.map((e) => e.id)).toEqual(items.filter((e) => e.hash.startsWith(prefix.toLowerCase())).map((e) => e.id));
      expect(found.items.map((e) => e.id)).toContain(wanted.id);
    }
    expect((await live.director.audit.list.query({ hash: 'ffffffffffffffffffff' })).items).toEqual([]);
    for (const bad of ['abc12', 'zzzzzzzz', `${wanted.hash}0`])
      await expect(live.director.audit.list.query({ hash: bad })).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
    // Walled events are not found by their hash either.
    const [walled] = await sql<{ hash: string }>(live.server.databaseUrl, `SELECT hash FROM audit_events WHERE subject = $1 LIMIT 1`, [
      `client:${zed}`,
    ]);
    expect((await ivy.audit.list.query({ hash: walled!.hash })).items).toEqual([]);
    expect((await live.director.audit.list.query({ hash: walled!.hash })).items).toHaveLength(1);
  });

  it("carries each event's chain columns: each prevHash is the hash of the event before it, the newest is the head", async () => {
    const { items } = await live.director.audit.list.query({ limit: 200 });
    const head = await readChainHead(db());
    expect(items[0]).toMatchObject({ id: head.id, hash: head.hash });
    const stored = await sql<{ id: string; prev_hash: string; hash: string }>(
      live.server.databaseUrl,
      'SELECT id::text, prev_hash, hash FROM audit_events ORDER BY id',
    );
    const byId = new Map(stored.map((r) => [Number(r.id), r]));
    for (const item of items) {
      expect(item.hash).toMatch(/^[0-9a-f]{64}$/);
      expect({ prevHash: item.prevHash, hash: item.hash }).toEqual({
        prevHash: byId.get(item.id)!.prev_hash,
        hash: byId.get(item.id)!.hash,
      });
    }
    // Dee is walled from nothing, so her page is the whole trail: each event links to the one listed after it.
    expect(items).toHaveLength(stored.length);
    for (let i = 0; i + 1 < items.length; i++) expect(items[i]!.prevHash).toBe(items[i + 1]!.hash);
    expect(items.at(-1)!.prevHash).toBe('0'.repeat(64));
  });
});

// A deactivated account's sign-in told apart in the trail, while the person is answered as before.
it('records why a sign-in failed — unknown email, wrong password, deactivated account — and answers the person as before', async () => {
  await createUser({ email: 'leaver@firm.test', name: 'Lee Leaver', role: 'staff', password: 'leaver-password' });
  const leaver = (await User.findOne({ where: { email: 'leaver@firm.test' } }))!;
  await live.director.users.deactivate.mutate({ userId: leaver.id });
  const anonymous = createHttpClient(live.server.url).client;
  const answer = (attempt: Promise<unknown>) =>
    attempt.then(
      () => null,
      (error: { message: string; data?: { code?: string } }) => ({ message: error.message, code: error.data?.code }),
    );
  const unknown = await answer(anonymous.auth.signIn.mutate({ email: 'nobody@firm.test', password: 'whatever-password' }));
  const wrong = await answer(anonymous.auth.signIn.mutate({ email: 'leaver@firm.test', password: 'not-the-password' }));
  const deactivated = await answer(anonymous.auth.signIn.mutate({ email: 'leaver@firm.test', password: 'leaver-password' }));
  expect(unknown).toEqual({ message: 'Email or password is incorrect.', code: 'UNAUTHORIZED' });
  expect(wrong).toEqual(unknown);
  expect(deactivated).toEqual({
    message: 'This account has been deactivated. Ask a director of the firm if you need access again.',
    code: 'UNAUTHORIZED',
  });
  const { items } = await live.director.audit.list.query({ action: 'auth.sign_in_failed', limit: 3 });
  expect(items.map((e) => e.detail)).toEqual([
    { email: 'leaver@firm.test', reason: 'deactivated' },
    { email: 'leaver@firm.test', reason: 'wrong_password' },
    { email: 'nobody@firm.test', reason: 'unknown_email' },
  ]);
});
