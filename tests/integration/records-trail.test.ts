import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/app/start-server';
import { loadConfig } from '../../server/core/config';
import { createLogger } from '../../server/core/logger';
import { captureLogLines } from '../support/log-capture';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { match } from '../support/matchers';
import { runStatementsAs, verifyTrailAs } from '../support/records';
import { sql } from '../support/sql';
import { createTestDatabase } from '../support/test-database';

// The trail a regulator accepts (server/records/README.md "Records"): hash-chained by the database, appended by a
// request role that cannot change, disable, truncate, replace or back-date it; an owner's edit is
// found by the verifier.
let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());

/** Statements as the request role, in one transaction: what a compromised request could do. */
const asRequestRole = (statements: string[]) => runStatementsAs(live.server.requestDatabaseUrl, statements);
const verifyAsOwner = () => verifyTrailAs(live.server.databaseUrl);

describe('the chain', () => {
  it('links every row to the one before it, also when many requests append at once', async () => {
    // Twenty events appended at the same moment (each verification is audited): one chain, ids in chain order.
    await Promise.all(Array.from({ length: 20 }, () => live.director.audit.verify.query()));
    const rows = await sql<{ id: string; prev_hash: string; hash: string }>(
      live.server.databaseUrl,
      'SELECT id::text, prev_hash, hash FROM audit_events e ORDER BY e.id',
    );
    expect(rows.length).toBeGreaterThanOrEqual(22);
    expect(rows[0]!.prev_hash).toBe('0'.repeat(64));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash);
    const check = await live.director.audit.verify.query();
    expect(check).toMatchObject({ ok: true, rows: rows.length, head: { id: Number(rows.at(-1)!.id), hash: rows.at(-1)!.hash } });
    // The check itself joins the trail, after the head it verified.
    const [last] = await sql<{ action: string; detail: { ok: boolean; rows: number } }>(
      live.server.databaseUrl,
      'SELECT action, detail FROM audit_events ORDER BY id DESC LIMIT 1',
    );
    expect(last).toEqual({ action: 'audit.verify', detail: match.objectContaining({ ok: true, rows: rows.length }) });
    await expect(live.staff.audit.verify.query()).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
  });

  it('hashes what the database stores exactly: quotes, backslashes, control characters, emoji and right-to-left text', async () => {
    await asRequestRole([
      `INSERT INTO audit_events (action, subject, detail) VALUES ('export.create', 'client:1',
        '{"fileName": "a \\"quoted\\" \\\\ name\\u0001\\t\\n 👍 \\u202e gpj.exe", "n": 1.50, "nested": {"b": [1, null, true]}}')`,
    ]);
    expect(await verifyAsOwner()).toMatchObject({ ok: true });
  });
});

describe('the request role (five attacks that worked with the owner’s rights)', () => {
  it('cannot lift the append-only trigger, turn triggers off for its session, drop them, or truncate', async () => {
    await expect(asRequestRole(['ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only'])).rejects.toThrow(/must be owner/);
    await expect(asRequestRole(['SET session_replication_role = replica'])).rejects.toThrow(/permission denied/);
    await expect(asRequestRole(['DROP TRIGGER audit_events_append_only ON audit_events'])).rejects.toThrow(/must be owner/);
    await expect(asRequestRole(['TRUNCATE audit_events'])).rejects.toThrow(/permission denied/);
    await expect(asRequestRole(["UPDATE audit_events SET detail = '{}' WHERE id = 1"])).rejects.toThrow(/permission denied/);
    await expect(asRequestRole(["DELETE FROM audit_events WHERE action = 'auth.sign_in_failed'"])).rejects.toThrow(/permission denied/);
    await expect(asRequestRole(['ALTER TABLE audit_events RENAME TO audit_events_old'])).rejects.toThrow(/must be owner/);
    await expect(asRequestRole(['CREATE TABLE audit_events_new (LIKE audit_events)'])).rejects.toThrow(/permission denied/);
    await expect(asRequestRole(["UPDATE audit_chain_head SET last_hash = 'x'"])).rejects.toThrow(/permission denied/);
    // A temporary table or sequence would be searched before public: named like the trail's, it would take appends out of it.
    await expect(asRequestRole(['CREATE TEMP TABLE audit_events (LIKE public.audit_events)'])).rejects.toThrow(/permission denied/);
    await expect(asRequestRole(['CREATE TEMP SEQUENCE audit_events_id_seq'])).rejects.toThrow(/permission denied/);
    expect(await verifyAsOwner()).toMatchObject({ ok: true });
  });

  it('cannot back-date, place or pre-hash an event: the trigger sets its id, time and hashes', async () => {
    const [before] = await sql<{ id: string; hash: string }>(
      live.server.databaseUrl,
      'SELECT last_id::text AS id, last_hash AS hash FROM audit_chain_head',
    );
    await asRequestRole([
      `INSERT INTO audit_events (id, at, user_id, action, subject, detail, prev_hash, hash)
       VALUES (1, '2020-01-01T00:00:00Z', NULL, 'auth.sign_in_failed', 'email:forged@firm.test', '{}', 'forged', 'forged')`,
    ]);
    const [forged] = await sql<{ id: string; at: Date; prev_hash: string; hash: string }>(
      live.server.databaseUrl,
      "SELECT id::text, at, prev_hash, hash FROM audit_events WHERE subject = 'email:forged@firm.test'",
    );
    expect(BigInt(forged!.id)).toBeGreaterThan(BigInt(before!.id));
    expect(Date.now() - forged!.at.getTime()).toBeLessThan(60_000);
    expect(forged!.prev_hash).toBe(before!.hash);
    expect(forged!.hash).not.toBe('forged');
    expect(await verifyAsOwner()).toMatchObject({ ok: true });
  });

  it('is what the server runs requests as: neither superuser nor owner', async () => {
    const [role] = await sql<{ rolsuper: boolean }>(live.server.databaseUrl, `SELECT rolsuper FROM pg_roles WHERE rolname = $1`, [
      new URL(live.server.requestDatabaseUrl).username,
    ]);
    expect(role).toEqual({ rolsuper: false });
    const [owner] = await sql<{ owner: string }>(
      live.server.databaseUrl,
      "SELECT tableowner AS owner FROM pg_tables WHERE tablename = 'audit_events'",
    );
    expect(owner!.owner).not.toBe(new URL(live.server.requestDatabaseUrl).username);
    const [used] = await sql<{ n: number }>(
      live.server.databaseUrl,
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND datname = current_database()',
      [new URL(live.server.requestDatabaseUrl).username],
    );
    expect(used!.n).toBeGreaterThan(0);
  });
});

describe('the verifier finds what the owner changed', () => {
  // Each edit is made as the owner (who can lift the triggers) and undone after, so the next starts clean.
  async function asOwner(statements: string[]): Promise<void> {
    const client = new pg.Client({ connectionString: live.server.databaseUrl });
    await client.connect();
    try {
      for (const text of statements) await client.query(text);
    } finally {
      await client.end();
    }
  }
  const ids = async () =>
    (await sql<{ id: string }>(live.server.databaseUrl, 'SELECT id::text FROM audit_events e ORDER BY e.id')).map((r) => Number(r.id));

  it('an edit in the middle, at the head, at the tail; a deleted first row, a deleted last row', async () => {
    const all = await ids();
    const middle = all[Math.floor(all.length / 2)]!;
    const first = all[0]!;
    const last = all.at(-1)!;
    const lift = 'ALTER TABLE audit_events DISABLE TRIGGER USER';
    const restore = 'ALTER TABLE audit_events ENABLE TRIGGER USER';
    const saved = await sql<{ id: string; detail: unknown }>(
      live.server.databaseUrl,
      'SELECT id::text, detail FROM audit_events WHERE id = ANY($1)',
      [[first, middle, last]],
    );
    const put = (id: number) =>
      `UPDATE audit_events SET detail = '${JSON.stringify(saved.find((s) => Number(s.id) === id)!.detail)}'::jsonb WHERE id = ${id}`;

    for (const id of [middle, first, last]) {
      await asOwner([lift, `UPDATE audit_events SET detail = detail || '{"edited": true}' WHERE id = ${id}`, restore]);
      expect(await verifyAsOwner()).toMatchObject({ ok: false, firstBadId: id, problem: 'its content does not match its hash' });
      await asOwner([lift, put(id), restore]);
      expect(await verifyAsOwner()).toMatchObject({ ok: true });
    }

    // Deleted rows cannot be put back as they were: these run last.
    const tail = (await ids()).at(-1)!;
    await asOwner([lift, `DELETE FROM audit_events WHERE id = ${tail}`, restore]);
    expect(await verifyAsOwner()).toMatchObject({ ok: false, firstBadId: tail, problem: 'the last rows of the trail are missing' });
    await asOwner([lift, `DELETE FROM audit_events WHERE id = ${first}`, restore]);
    expect(await verifyAsOwner()).toMatchObject({ ok: false, firstBadId: all[1], problem: 'the first row does not start the chain' });
  });
});

describe('the start-up check of the request role', () => {
  // The trail is only as safe as the role requests run as: a start says so when it is the owner's.
  const startWithLog = async (env: Record<string, string>) => {
    const { lines, destination } = captureLogLines();
    const server = await startServer(loadConfig({ LOG_LEVEL: 'warn', PORT: '0', ...env }), createLogger('warn', destination));
    await server.close();
    return lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
  };

  it('warns when one URL serves requests and migrations, and not when a lesser role runs the requests', async () => {
    const database = await createTestDatabase();
    try {
      const alone = await startWithLog({ DATABASE_URL: database.url });
      expect(alone).toContainEqual(
        match.stringMatching(/one DATABASE_URL serves requests and migrations: the audit trail is only as safe as that role/),
      );
      const both = await startWithLog({ DATABASE_URL: database.requestUrl, DATABASE_OWNER_URL: database.url });
      expect(both.filter((msg) => /audit trail/.test(msg))).toEqual([]);
    } finally {
      await database.drop();
    }
  });
});
