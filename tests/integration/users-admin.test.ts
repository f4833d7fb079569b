import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useProductionHashCost } from '../support/hash-cost';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { endsWithin, isConnected, openLiveStream, type TLiveStream } from '../support/live-stream';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';
import { match } from '../support/matchers';
import { signedInUser } from '../support/sign-in-answer';

// Directors manage people in the app (add, change a role, deactivate); the
// server enforces who may, and keeps the firm from losing its last director.
let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());

const db = () => live.server.databaseUrl;

async function signIn(email: string, password: string) {
  const session = createHttpClient(live.server.url);
  await session.client.auth.signIn.mutate({ email, password });
  const cookie = [...session.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  return { ...session, cookie };
}

async function auditOf(subject: string) {
  return sql<{ action: string; user_id: number | null; detail: Record<string, unknown> }>(
    db(),
    "SELECT action, user_id, detail FROM audit_events WHERE subject = $1 AND action LIKE 'user.%' ORDER BY id",
    [subject],
  );
}

async function idOf(email: string): Promise<number> {
  return (await sql<{ id: number }>(db(), 'SELECT id FROM users WHERE email = $1', [email]))[0]!.id;
}

/** A live stream (inbox.onChange) opened with a cookie, once connected. */
async function openStream(cookie: string): Promise<TLiveStream> {
  const stream = await openLiveStream(live.server.url, cookie);
  await stream.waitFor(isConnected);
  return stream;
}

describe('adding people', () => {
  it('a director adds someone with a password they set: they can sign in, and the trail says who added them', async () => {
    const { user, generatedPassword } = await live.director.users.add.mutate({
      name: '  Priya Patel ',
      email: 'Priya@Firm.Test',
      role: 'staff',
      password: 'priya-first-pass',
    });
    expect(user).toMatchObject({ name: 'Priya Patel', email: 'priya@firm.test', role: 'staff', deactivatedAt: null });
    expect(generatedPassword).toBeNull();
    const priya = createHttpClient(live.server.url).client;
    expect(signedInUser(await priya.auth.signIn.mutate({ email: 'priya@firm.test', password: 'priya-first-pass' }))).toMatchObject({
      id: user.id,
      role: 'staff',
    });
    const dee = await idOf('dee@firm.test');
    expect(await auditOf(`user:${user.id}`)).toEqual([
      { action: 'user.add', user_id: dee, detail: { email: 'priya@firm.test', role: 'staff' } },
    ]);
    expect((await live.director.users.list.query()).map((u) => u.email)).toContain('priya@firm.test');
  });

  it('without a password the server makes one, returns it once and stores only its hash', async () => {
    const { user, generatedPassword } = await live.director.users.add.mutate({
      name: 'Omar Said',
      email: 'omar@firm.test',
      role: 'director',
      password: '',
    });
    expect(generatedPassword).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);
    const [row] = await sql<{ password_hash: string }>(db(), 'SELECT password_hash FROM users WHERE id = $1', [user.id]);
    expect(row!.password_hash).toMatch(/^scrypt\$/);
    expect(row!.password_hash).not.toContain(generatedPassword!);
    const audit = await sql<{ detail: unknown }>(db(), 'SELECT detail FROM audit_events WHERE subject = $1', [`user:${user.id}`]);
    expect(JSON.stringify(audit)).not.toContain(generatedPassword!);
    const omar = createHttpClient(live.server.url).client;
    expect(signedInUser(await omar.auth.signIn.mutate({ email: 'omar@firm.test', password: generatedPassword! })).role).toBe('director');
    expect((await live.director.users.list.query()).find((u) => u.id === user.id)).not.toHaveProperty('passwordHash');
  });

  it('an email already in use (any case) is CONFLICT, said next to the email field, and adds nothing', async () => {
    const before = await sql(db(), 'SELECT count(*)::int AS n FROM users');
    const error = await live.director.users.add
      .mutate({ name: 'Sam Again', email: 'SAM@firm.test', role: 'staff', password: 'another-password' })
      .then(
        () => null,
        (e: { data?: { code?: string; fieldErrors?: Record<string, string[]> } }) => e,
      );
    expect(error?.data?.code).toBe('CONFLICT');
    expect(error?.data?.fieldErrors?.email?.[0]).toMatch(/already/);
    expect(await sql(db(), 'SELECT count(*)::int AS n FROM users')).toEqual(before);
  });

  it('refuses a name too long, an email that is not one and a short password, each said for its field', async () => {
    const error = await live.director.users.add
      .mutate({ name: 'x'.repeat(201), email: 'not-an-email', role: 'staff', password: 'short' })
      .then(
        () => null,
        (e: { data?: { code?: string; fieldErrors?: Record<string, string[]> } }) => e,
      );
    expect(error?.data?.code).toBe('BAD_REQUEST');
    expect(error?.data?.fieldErrors).toMatchObject({
      name: ['Name is too long — 200 characters at most'],
      email: [match.stringMatching(/email address/)],
      password: ['Password is too short — 10 characters at least'],
    });
  });
});

describe('changing a role', () => {
  it('takes effect on the person’s next request, without signing in again, and is in the trail', async () => {
    await live.director.users.add.mutate({ name: 'Rosa Lind', email: 'rosa@firm.test', role: 'staff', password: 'rosa-first-pass' });
    const rosaId = await idOf('rosa@firm.test');
    const rosa = await signIn('rosa@firm.test', 'rosa-first-pass');
    await expect(rosa.client.users.list.query()).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });

    expect(await live.director.users.changeRole.mutate({ userId: rosaId, role: 'director' })).toMatchObject({
      id: rosaId,
      role: 'director',
    });
    expect((await rosa.client.auth.me.query())?.role).toBe('director');
    expect((await rosa.client.users.list.query()).length).toBeGreaterThan(0);

    await live.director.users.changeRole.mutate({ userId: rosaId, role: 'staff' });
    await expect(rosa.client.users.list.query()).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    const dee = await idOf('dee@firm.test');
    expect((await auditOf(`user:${rosaId}`)).filter((e) => e.action === 'user.role_change')).toEqual([
      { action: 'user.role_change', user_id: dee, detail: { from: 'staff', to: 'director' } },
      { action: 'user.role_change', user_id: dee, detail: { from: 'director', to: 'staff' } },
    ]);
  });

  it('the last active director cannot be demoted; with another director, they can step down', async () => {
    // Only Dee is an active director here: Omar (made a director above) is made staff first.
    const omarId = await idOf('omar@firm.test');
    await live.director.users.changeRole.mutate({ userId: omarId, role: 'staff' });
    const deeId = await idOf('dee@firm.test');
    const error = await live.director.users.changeRole.mutate({ userId: deeId, role: 'staff' }).then(
      () => null,
      (e: Error & { data?: { code?: string } }) => e,
    );
    expect(error?.data?.code).toBe('PRECONDITION_FAILED');
    expect(error?.message).toMatch(/only active director/);
    expect(await sql(db(), 'SELECT role FROM users WHERE id = $1', [deeId])).toEqual([{ role: 'director' }]);
    await live.director.users.changeRole.mutate({ userId: omarId, role: 'director' });
  });

  it('two directors demoting each other at the same moment: one of them stays a director', async () => {
    await live.director.users.add.mutate({ name: 'Ada One', email: 'ada@firm.test', role: 'director', password: 'ada-first-pass' });
    await live.director.users.add.mutate({ name: 'Bea Two', email: 'bea@firm.test', role: 'director', password: 'bea-first-pass' });
    // Everyone else steps out of the way: only Ada and Bea are active directors.
    const others = await sql<{ id: number }>(
      db(),
      "SELECT id FROM users WHERE role = 'director' AND email NOT IN ('ada@firm.test', 'bea@firm.test', 'dee@firm.test')",
    );
    for (const { id } of others) await live.director.users.changeRole.mutate({ userId: id, role: 'staff' });
    const ada = await signIn('ada@firm.test', 'ada-first-pass');
    const bea = await signIn('bea@firm.test', 'bea-first-pass');
    await ada.client.users.changeRole.mutate({ userId: await idOf('dee@firm.test'), role: 'staff' });

    const results = await Promise.allSettled([
      ada.client.users.changeRole.mutate({ userId: await idOf('bea@firm.test'), role: 'staff' }),
      bea.client.users.changeRole.mutate({ userId: await idOf('ada@firm.test'), role: 'staff' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const directors = await sql(db(), "SELECT email FROM users WHERE role = 'director' AND deactivated_at IS NULL");
    expect(directors).toHaveLength(1);
    // Put Dee back for the tests below (she is the `live.director` session).
    const remaining = (directors[0] as { email: string }).email === 'ada@firm.test' ? ada : bea;
    await remaining.client.users.changeRole.mutate({ userId: await idOf('dee@firm.test'), role: 'director' });
  });
});

describe('deactivating', () => {
  it('signs the person out everywhere at once: sessions deleted, next request UNAUTHORIZED, live stream ended, no new sign-in', async () => {
    await live.director.users.add.mutate({ name: 'Tom Leaver', email: 'tom@firm.test', role: 'staff', password: 'tom-first-pass' });
    const tomId = await idOf('tom@firm.test');
    const laptop = await signIn('tom@firm.test', 'tom-first-pass');
    const phone = await signIn('tom@firm.test', 'tom-first-pass');
    const stream = await openStream(laptop.cookie);
    expect(await sql(db(), 'SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [tomId])).toEqual([{ n: 2 }]);

    const done = await live.director.users.deactivate.mutate({ userId: tomId });
    expect(done.deactivatedAt).toBeInstanceOf(Date);
    expect(await sql(db(), 'SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [tomId])).toEqual([{ n: 0 }]);
    expect(await endsWithin(stream, 2_000)).toBe('ended');
    stream.close();
    await expect(laptop.client.clients.list.query({})).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    await expect(phone.client.inbox.unreadCount.query()).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    expect(await laptop.client.auth.me.query()).toBeNull();
    await expect(
      createHttpClient(live.server.url).client.auth.signIn.mutate({ email: 'tom@firm.test', password: 'tom-first-pass' }),
    ).rejects.toThrow(/deactivated/);

    const dee = await idOf('dee@firm.test');
    expect((await auditOf(`user:${tomId}`)).filter((e) => e.action === 'user.deactivate')).toEqual([
      { action: 'user.deactivate', user_id: dee, detail: { role: 'staff', sessionsEnded: 2 } },
    ]);
    // Twice (a double click): nothing more happens, nothing more is recorded.
    await live.director.users.deactivate.mutate({ userId: tomId });
    expect((await auditOf(`user:${tomId}`)).filter((e) => e.action === 'user.deactivate')).toHaveLength(1);
    // The row stays (their name stays on what they did), listed as deactivated.
    expect((await live.director.users.list.query()).find((u) => u.id === tomId)?.deactivatedAt).toBeInstanceOf(Date);
    await expect(live.director.users.changeRole.mutate({ userId: tomId, role: 'director' })).rejects.toMatchObject({
      data: { code: 'PRECONDITION_FAILED' },
    });
  });

  it('a session that a sign-in creates while deactivation runs is refused too', async () => {
    await live.director.users.add.mutate({ name: 'Uma Late', email: 'uma@firm.test', role: 'staff', password: 'uma-first-pass' });
    const umaId = await idOf('uma@firm.test');
    const uma = await signIn('uma@firm.test', 'uma-first-pass');
    // As if the sign-in's session row landed after the deactivation deleted the others.
    await sql(db(), 'UPDATE users SET deactivated_at = now() WHERE id = $1', [umaId]);
    await expect(uma.client.clients.list.query({})).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
  });

  it('a director cannot deactivate themselves', async () => {
    const deeId = await idOf('dee@firm.test');
    const error = await live.director.users.deactivate.mutate({ userId: deeId }).then(
      () => null,
      (e: Error & { data?: { code?: string } }) => e,
    );
    expect(error?.data?.code).toBe('PRECONDITION_FAILED');
    expect(error?.message).toMatch(/your own account/);
    expect(await sql(db(), 'SELECT deactivated_at FROM users WHERE id = $1', [deeId])).toEqual([{ deactivated_at: null }]);
  });

  it('two directors deactivating each other at the same moment: one of them stays', async () => {
    await live.director.users.add.mutate({ name: 'Cal Three', email: 'cal@firm.test', role: 'director', password: 'cal-first-pass' });
    await live.director.users.add.mutate({ name: 'Dot Four', email: 'dot@firm.test', role: 'director', password: 'dot-first-pass' });
    const cal = await signIn('cal@firm.test', 'cal-first-pass');
    const dot = await signIn('dot@firm.test', 'dot-first-pass');
    const others = await sql<{ id: number }>(
      db(),
      "SELECT id FROM users WHERE role = 'director' AND deactivated_at IS NULL AND email NOT IN ('cal@firm.test', 'dot@firm.test')",
    );
    for (const { id } of others) await cal.client.users.changeRole.mutate({ userId: id, role: 'staff' });

    const results = await Promise.allSettled([
      cal.client.users.deactivate.mutate({ userId: await idOf('dot@firm.test') }),
      dot.client.users.deactivate.mutate({ userId: await idOf('cal@firm.test') }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await sql(db(), "SELECT count(*)::int AS n FROM users WHERE role = 'director' AND deactivated_at IS NULL")).toEqual([{ n: 1 }]);
    // Put Dee back for the tests below (she is the `live.director` session).
    const remaining = results[0].status === 'fulfilled' ? cal : dot;
    await remaining.client.users.changeRole.mutate({ userId: await idOf('dee@firm.test'), role: 'director' });
  });
});

describe('two directors acting on each other at the same moment, a third director still there', () => {
  // The last-director guard cannot decide these (a third director stays whatever happens): only
  // re-reading the actor inside the locked transaction can. Fresh users each round, ten rounds.
  async function directorPair(round: string) {
    const pair = [];
    for (const who of ['x', 'y']) {
      const email = `${who}-${round}@firm.test`;
      const { user } = await live.director.users.add.mutate({
        name: `${who.toUpperCase()} ${round}`,
        email,
        role: 'director',
        password: `${who}-first-pass`,
      });
      pair.push({ id: user.id, session: await signIn(email, `${who}-first-pass`) });
    }
    return pair as [
      { id: number; session: Awaited<ReturnType<typeof signIn>> },
      { id: number; session: Awaited<ReturnType<typeof signIn>> },
    ];
  }
  type TRefusal = { data?: { code?: string } };

  it('deactivating each other: exactly one wins every time, and no deactivated user deactivates anyone', async () => {
    for (let round = 0; round < 10; round++) {
      const [x, y] = await directorPair(`off${round}`);
      const results = await Promise.allSettled([
        x.session.client.users.deactivate.mutate({ userId: y.id }),
        y.session.client.users.deactivate.mutate({ userId: x.id }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      // The loser is refused here, or earlier by the session check if the winner committed first.
      const refusal = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as TRefusal;
      expect(['FORBIDDEN', 'UNAUTHORIZED']).toContain(refusal.data?.code);
      const rows = await sql<{ id: number }>(db(), 'SELECT id FROM users WHERE id = ANY($1::int[]) AND deactivated_at IS NULL', [
        [x.id, y.id],
      ]);
      expect(rows).toHaveLength(1);
      const events = await sql<{ user_id: number }>(
        db(),
        "SELECT user_id FROM audit_events WHERE action = 'user.deactivate' AND subject = ANY($1::text[])",
        [[`user:${x.id}`, `user:${y.id}`]],
      );
      expect(events).toEqual([{ user_id: rows[0]!.id }]);
    }
  });

  it('demoting each other: exactly one wins every time, and no demoted user demotes anyone', async () => {
    for (let round = 0; round < 10; round++) {
      const [x, y] = await directorPair(`demote${round}`);
      const results = await Promise.allSettled([
        x.session.client.users.changeRole.mutate({ userId: y.id, role: 'staff' }),
        y.session.client.users.changeRole.mutate({ userId: x.id, role: 'staff' }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as TRefusal).data?.code).toBe('FORBIDDEN');
      const directors = await sql<{ id: number }>(db(), "SELECT id FROM users WHERE id = ANY($1::int[]) AND role = 'director'", [
        [x.id, y.id],
      ]);
      expect(directors).toHaveLength(1);
      const events = await sql<{ user_id: number }>(
        db(),
        "SELECT user_id FROM audit_events WHERE action = 'user.role_change' AND subject = ANY($1::text[])",
        [[`user:${x.id}`, `user:${y.id}`]],
      );
      expect(events).toEqual([{ user_id: directors[0]!.id }]);
    }
  });

  it.each([
    ['deactivated', 'UPDATE users SET deactivated_at = now() WHERE id = $1', /You were deactivated/],
    ['made staff', "UPDATE users SET role = 'staff' WHERE id = $1", /You are no longer a director/],
  ])('an actor %s while their request waits for the lock is refused with a sentence saying why', async (what, change, message) => {
    const [x, y] = await directorPair(`late-${what.replace(' ', '-')}`);
    // Hold x's row, let x's request pass its session check and queue behind it, then change x.
    const holder = new pg.Client({ connectionString: db() });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [x.id]);
      const attempt = x.session.client.users.deactivate.mutate({ userId: y.id }).then(
        () => null,
        (e: Error & TRefusal) => e,
      );
      await expect
        .poll(
          async () =>
            (
              await sql<{ n: number }>(
                db(),
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'",
              )
            )[0]!.n,
        )
        .toBe(1);
      await holder.query(change, [x.id]);
      await holder.query('COMMIT');
      const error = await attempt;
      expect(error?.data?.code).toBe('FORBIDDEN');
      expect(error?.message).toMatch(message);
      expect(await sql(db(), 'SELECT deactivated_at FROM users WHERE id = $1', [y.id])).toEqual([{ deactivated_at: null }]);
    } finally {
      await holder.end();
    }
  });
});

describe('reactivating', () => {
  it('a deactivated account’s email cannot be added again: CONFLICT says to reactivate it instead', async () => {
    await live.director.users.add.mutate({ name: 'Vic Return', email: 'vic@firm.test', role: 'staff', password: 'vic-first-pass' });
    const vicId = await idOf('vic@firm.test');
    await live.director.users.deactivate.mutate({ userId: vicId });
    const error = await live.director.users.add
      .mutate({ name: 'Vic Again', email: 'VIC@firm.test', role: 'staff', password: 'another-password' })
      .then(
        () => null,
        (e: Error & { data?: { code?: string; fieldErrors?: Record<string, string[]> } }) => e,
      );
    expect(error?.data?.code).toBe('CONFLICT');
    expect(error?.message).toMatch(/belongs to a deactivated account: reactivate it instead/);
    expect(error?.data?.fieldErrors?.email?.[0]).toMatch(/deactivated account: reactivate it instead/);
  });

  it('a director reactivates someone: they sign in again with their password, once in the trail, twice is nothing more', async () => {
    const vicId = await idOf('vic@firm.test');
    const done = await live.director.users.reactivate.mutate({ userId: vicId });
    expect(done).toMatchObject({ id: vicId, role: 'staff', deactivatedAt: null });
    expect(
      signedInUser(
        await createHttpClient(live.server.url).client.auth.signIn.mutate({ email: 'vic@firm.test', password: 'vic-first-pass' }),
      ).id,
    ).toBe(vicId);
    await live.director.users.reactivate.mutate({ userId: vicId });
    const dee = await idOf('dee@firm.test');
    expect((await auditOf(`user:${vicId}`)).filter((e) => e.action === 'user.reactivate')).toEqual([
      { action: 'user.reactivate', user_id: dee, detail: { role: 'staff' } },
    ]);
    const { items } = await live.director.audit.list.query({ action: 'user.reactivate' });
    expect(items.map((i) => i.subject)).toContain(`user:${vicId}`);
  });

  it('an unknown user is NOT_FOUND', async () => {
    await expect(live.director.users.reactivate.mutate({ userId: 999_999 })).rejects.toMatchObject({
      message: 'That user does not exist.',
      data: { code: 'NOT_FOUND' },
    });
  });
});

describe('names and passwords that are refused', () => {
  type TRefusal = { data?: { code?: string; fieldErrors?: Record<string, string[]> } };
  it.each([
    ['a NUL', 'nul\u0000name'],
    ['a bell and a right-to-left override', '\u202eevil\u0007'],
    ['a C1 control', 'next\u0085line'],
    ['a directional isolate', 'a\u2066b\u2069'],
    ['a tab inside', 'tab\tname'],
  ])('a name with %s is refused for its field, and nothing is added', async (_what, name) => {
    const before = await sql(db(), 'SELECT count(*)::int AS n FROM users');
    const error = await live.director.users.add
      .mutate({ name, email: 'hidden@firm.test', role: 'staff', password: 'hidden-password' })
      .then(
        () => null,
        (e: TRefusal) => e,
      );
    expect(error?.data?.code).toBe('BAD_REQUEST');
    expect(error?.data?.fieldErrors?.name).toEqual([match.stringMatching(/hidden control or text-direction character/)]);
    expect(await sql(db(), 'SELECT count(*)::int AS n FROM users')).toEqual(before);
  });

  it('a name with accents, apostrophes and other scripts is kept as typed', async () => {
    const { user } = await live.director.users.add.mutate({
      name: 'Zoë O’Brien-Łukasz 李',
      email: 'zoe@firm.test',
      role: 'staff',
      password: 'zoe-first-pass',
    });
    expect(user.name).toBe('Zoë O’Brien-Łukasz 李');
  });

  it('a password with a NUL is refused for its field', async () => {
    const error = await live.director.users.add
      .mutate({ name: 'Nul Pass', email: 'nulpass@firm.test', role: 'staff', password: 'long-enough\u0000pass' })
      .then(
        () => null,
        (e: TRefusal) => e,
      );
    expect(error?.data?.code).toBe('BAD_REQUEST');
    expect(error?.data?.fieldErrors?.password).toEqual([match.stringMatching(/null character/)]);
  });
});

describe('when the password queue is full', () => {
  // Real ~100 ms hashes: cheap ones would never fill the queue.
  useProductionHashCost();

  it('adding people is told the server is busy, not that it is checking sign-ins', async () => {
    const answers = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        live.director.users.add.mutate({ name: `Busy ${i}`, email: `busy-add-${i}@firm.test`, role: 'staff', password: 'busy-first-pass' }),
      ),
    );
    const busy = answers.filter((a) => a.status === 'rejected').map((a) => a.reason as Error & { data?: { code?: string } });
    expect(busy.length).toBeGreaterThan(0);
    for (const error of busy) {
      expect(error.data?.code).toBe('TOO_MANY_REQUESTS');
      expect(error.message).toBe('The server is busy: try again in a moment.');
    }
    // The accepted ones hash at production cost: seconds each when two whole suites share the cores.
  }, 120_000);
});

describe('only directors manage people', () => {
  it('staff get FORBIDDEN from every users procedure, and nothing changes', async () => {
    const before = await sql(db(), 'SELECT id, role, deactivated_at FROM users ORDER BY id');
    const sam = await idOf('sam@firm.test');
    await expect(live.staff.users.list.query()).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    await expect(
      live.staff.users.add.mutate({ name: 'Sneaky', email: 'sneaky@firm.test', role: 'director', password: 'sneaky-password' }),
    ).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    await expect(live.staff.users.changeRole.mutate({ userId: sam, role: 'director' })).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
    await expect(live.staff.users.deactivate.mutate({ userId: sam })).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    await expect(live.staff.users.reactivate.mutate({ userId: sam })).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    expect(await sql(db(), 'SELECT id, role, deactivated_at FROM users ORDER BY id')).toEqual(before);
  });

  it('signed-out callers get UNAUTHORIZED', async () => {
    const anonymous = createHttpClient(live.server.url).client;
    await expect(anonymous.users.list.query()).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    await expect(
      anonymous.users.add.mutate({ name: 'Nobody', email: 'nobody@firm.test', role: 'staff', password: 'nobody-password' }),
    ).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
  });
});
