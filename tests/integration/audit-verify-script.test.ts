import { afterEach, describe, expect, it } from 'vitest';
import { runScript } from '../support/app-process';
import { sql } from '../support/sql';
import { createTestDatabase, type TTestDatabase } from '../support/test-database';

// npm run audit:verify (server/records/README.md "Records"): exit 0 with the head when the chain holds; exit 1 naming
// the first bad event after an owner-side change the triggers could not stop (an edit, a deleted
// first or last row), made as a superuser would: triggers lifted, changed, put back.

let database: TTestDatabase | undefined;
afterEach(() => database?.drop());

const EVENTS = 12;

/** A fresh database with a trail of EVENTS events, chained by the insert trigger as the app's are. */
async function databaseWithTrail(): Promise<TTestDatabase> {
  database = await createTestDatabase();
  await sql(
    database.url,
    `INSERT INTO audit_events (action, subject, detail)
     SELECT 'test.event', 'subject-' || i, jsonb_build_object('i', i, 'text', 'ünïcode "quoted" \\ ✓') FROM generate_series(1, ${EVENTS}) i`,
  );
  return database;
}

const verify = (db: TTestDatabase) =>
  runScript('server/scripts/verify-audit.ts', {
    ...process.env,
    DATABASE_URL: db.requestUrl,
    DATABASE_OWNER_URL: db.url,
    LOG_LEVEL: 'warn',
  });

/** As the owner: lift the trail's own triggers, change it, put them back. */
async function tamper(db: TTestDatabase, change: string): Promise<void> {
  await sql(db.url, `ALTER TABLE audit_events DISABLE TRIGGER USER; ${change}; ALTER TABLE audit_events ENABLE TRIGGER USER`);
}

const ids = async (db: TTestDatabase) =>
  (await sql<{ id: string }>(db.url, 'SELECT id::text AS id FROM audit_events ORDER BY audit_events.id')).map((r) => Number(r.id));

describe('npm run audit:verify', () => {
  it('exits 0 on a good trail, naming its size and head', async () => {
    const db = await databaseWithTrail();
    const [head] = await sql<{ id: string; hash: string }>(db.url, 'SELECT last_id::text AS id, last_hash AS hash FROM audit_chain_head');
    const result = await verify(db);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(`The trail verifies: ${EVENTS} events, head #${head!.id} ${head!.hash}`);
  });

  it('exits 1 naming the event whose detail was edited', async () => {
    const db = await databaseWithTrail();
    const target = (await ids(db))[4]!;
    await tamper(db, `UPDATE audit_events SET detail = '{"i": 0}' WHERE id = ${target}`);
    const result = await verify(db);
    expect(result.code).toBe(1);
    expect(result.output).toContain(`The trail does NOT verify at event #${target}: its content does not match its hash`);
  });

  it('exits 1 when the last event was deleted', async () => {
    const db = await databaseWithTrail();
    const all = await ids(db);
    await tamper(db, `DELETE FROM audit_events WHERE id = ${all[all.length - 1]}`);
    const result = await verify(db);
    expect(result.code).toBe(1);
    expect(result.output).toContain(`The trail does NOT verify at event #${all[all.length - 1]}: the last rows of the trail are missing`);
  });

  it('exits 1 when the first event was deleted, naming the one that now starts the trail', async () => {
    const db = await databaseWithTrail();
    const all = await ids(db);
    await tamper(db, `DELETE FROM audit_events WHERE id = ${all[0]}`);
    const result = await verify(db);
    expect(result.code).toBe(1);
    expect(result.output).toContain(`The trail does NOT verify at event #${all[1]}: the first row does not start the chain`);
  });
});
