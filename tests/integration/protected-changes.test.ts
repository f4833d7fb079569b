import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '../../client/src/features/audit/describe-audit-event';
import { parseAuditDetail } from '../../shared/audit/audit-details';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { runStatementsAs, verifyTrailAs } from '../support/records';
import { sql } from '../support/sql';
import { TEST_REQUEST_ROLE } from '../support/test-database';

// The database records changes to what protects the records itself (server/records/README.md "Records"; migration 0026):
// whoever makes them, the app's own login used directly included, a row of the trail says so, naming
// the database role; holds, erasure requests and retention batches end rather than vanish.

let live: TLiveSetup;
let deeId = 0;
let samId = 0;
let clientId = 0;
beforeAll(async () => {
  live = await startLiveSetup();
  const ids = await sql<{ email: string; id: number }>(live.server.databaseUrl, 'SELECT email, id FROM users');
  deeId = ids.find((u) => u.email === 'dee@firm.test')!.id;
  samId = ids.find((u) => u.email === 'sam@firm.test')!.id;
  clientId = (await live.director.clients.create.mutate({ name: 'Nora Vale', phone: '+447700955555' })).id;
});
afterAll(() => live?.stop());

const asRequestRole = (statements: string[]) => runStatementsAs(live.server.requestDatabaseUrl, statements);

type TEvent = { id: string; user_id: number | null; action: string; subject: string; detail: Record<string, unknown> };

/** The trail's events after `afterId`, oldest first. */
const eventsAfter = (afterId: string) =>
  sql<TEvent>(
    live.server.databaseUrl,
    'SELECT id::text, user_id, action, subject, detail FROM audit_events WHERE id > $1::bigint ORDER BY id',
    [afterId],
  );
const lastId = async () =>
  (await sql<{ id: string }>(live.server.databaseUrl, 'SELECT coalesce(max(id), 0)::text AS id FROM audit_events'))[0]!.id;

/** The one db.change event appended after `afterId`, checked against its schema. */
async function theChange(afterId: string): Promise<TEvent> {
  const events = (await eventsAfter(afterId)).filter((e) => e.action === 'db.change');
  expect(events).toHaveLength(1);
  expect(parseAuditDetail('db.change', events[0]!.detail).error?.issues ?? []).toEqual([]);
  return events[0]!;
}

describe('the request role, used directly', () => {
  it('cannot delete a hold, an erasure request or a retention batch', async () => {
    const hold = await live.director.holds.place.mutate({ clientId, reason: 'Dispute expected' });
    await expect(asRequestRole([`DELETE FROM legal_holds WHERE id = ${hold.id}`])).rejects.toThrow(/permission denied/);
    await expect(asRequestRole(['DELETE FROM erasure_requests'])).rejects.toThrow(/permission denied/);
    await expect(asRequestRole(['DELETE FROM retention_batches'])).rejects.toThrow(/permission denied/);
    expect(await sql(live.server.databaseUrl, 'SELECT id FROM legal_holds WHERE id = $1', [hold.id])).toHaveLength(1);
  });

  it('lifting a hold is on the trail, naming the role and, where set, the actor it claims', async () => {
    const hold = await live.director.holds.place.mutate({ clientId, reason: 'Second dispute' });
    const before = await lastId();
    await asRequestRole([`SET LOCAL app.actor = '${samId}'`, `UPDATE legal_holds SET released_at = now() WHERE id = ${hold.id}`]);
    const change = await theChange(before);
    expect(change).toMatchObject({
      user_id: samId,
      subject: `client:${clientId}`,
      detail: {
        table: 'legal_holds',
        op: 'update',
        row: { id: hold.id },
        changed: ['released_at'],
        dbRole: TEST_REQUEST_ROLE.user,
        actorId: samId,
        appEventId: null,
      },
    });
  });

  it('lifting a hold under a made-up event of the app’s is still the database’s own row, naming that event and what really changed', async () => {
    const hold = await live.director.holds.place.mutate({ clientId, reason: 'Third dispute' });
    const before = await lastId();
    await asRequestRole([
      `SET LOCAL app.actor = '${deeId}'`,
      `UPDATE legal_holds SET released_at = now(), released_by = ${deeId} WHERE id = ${hold.id}`,
      `INSERT INTO audit_events (user_id, action, subject, detail) VALUES (${deeId}, 'hold.release', 'client:${clientId}', '{}')`,
    ]);
    const [madeUp] = (await eventsAfter(before)).filter((e) => e.action === 'hold.release');
    const change = await theChange(before);
    expect(change.detail).toMatchObject({
      table: 'legal_holds',
      row: { id: hold.id },
      changed: ['released_at', 'released_by'],
      dbRole: TEST_REQUEST_ROLE.user,
      appEventId: Number(madeUp!.id),
    });
  });

  it('backdating a case’s closure, or inserting a case already closed, is on the trail (its records’ retention counts from it)', async () => {
    const kase = await live.director.cases.create.mutate({ clientId, reference: 'BACK-1', title: 'Backdated' });
    await live.director.cases.setStatus.mutate({ caseId: kase.id, status: 'closed' });
    const before = await lastId();
    await asRequestRole([`UPDATE cases SET closed_at = now() - interval '10 years' WHERE id = ${kase.id}`]);
    expect((await theChange(before)).detail).toMatchObject({
      table: 'cases',
      op: 'update',
      row: { id: kase.id },
      changed: ['closed_at'],
      appEventId: null,
    });
    const beforeInsert = await lastId();
    await asRequestRole([
      `INSERT INTO cases (client_id, reference, title, status, closed_at, created_at, updated_at)
       VALUES (${clientId}, 'BACK-2', 'Closed long ago', 'closed', now() - interval '10 years', now(), now())`,
    ]);
    expect((await theChange(beforeInsert)).detail).toMatchObject({
      table: 'cases',
      op: 'insert',
      changed: ['client_id', 'closed_at', 'status'],
    });
  });

  it('moving a case, or a client’s messages, out from behind its wall is on the trail, once per client; deleting a message is refused', async () => {
    const walled = (await live.director.clients.create.mutate({ name: 'Wanda Walled', phone: '+447700955777' })).id;
    const kase = await live.director.cases.create.mutate({ clientId: walled, reference: 'WALL-1', title: 'Walled matter' });
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata, created_at, updated_at)
       SELECT 'chat', 'inbound', 'Confidential ' || g, $1::int, '447700955777', jsonb_build_object('chat_msg_id', 'wamid.walled-' || g), now(), now()
       FROM generate_series(1, 3) g`,
      [walled],
    );
    const before = await lastId();
    await asRequestRole([
      `UPDATE cases SET client_id = ${clientId} WHERE id = ${kase.id}`,
      `UPDATE communications SET client_id = ${clientId} WHERE client_id = ${walled}`,
    ]);
    const changes = (await eventsAfter(before)).filter((e) => e.action === 'db.change');
    expect(changes.map((e) => [e.subject, e.detail.table, e.detail.changed])).toEqual([
      [`case:${kase.id}`, 'cases', ['client_id']],
      [`client:${walled}`, 'communications', ['client_id']],
    ]);
    await expect(asRequestRole([`DELETE FROM communications WHERE client_id = ${clientId}`])).rejects.toThrow(/permission denied/);
  });

  it('lifting a wall (a screen deleted) is on the trail', async () => {
    await live.director.access.screen.mutate({ clientId, userId: samId, reason: 'Acted for the other side' });
    const before = await lastId();
    await asRequestRole([`DELETE FROM access_screens WHERE subject_type = 'client' AND subject_id = ${clientId} AND user_id = ${samId}`]);
    const change = await theChange(before);
    expect(change).toMatchObject({
      user_id: null,
      subject: `client:${clientId}`,
      detail: {
        table: 'access_screens',
        op: 'delete',
        row: { subject_type: 'client', subject_id: clientId, user_id: samId },
        dbRole: TEST_REQUEST_ROLE.user,
        actorId: null,
      },
    });
  });

  it('reactivating a person, or changing their password, is on the trail without the secret', async () => {
    await live.director.users.deactivate.mutate({ userId: samId });
    const before = await lastId();
    await asRequestRole([`UPDATE users SET deactivated_at = NULL, name = 'Sam Staff' WHERE id = ${samId}`]);
    expect(await theChange(before)).toMatchObject({
      subject: `user:${samId}`,
      detail: { table: 'users', op: 'update', row: { id: samId }, changed: ['deactivated_at'], dbRole: TEST_REQUEST_ROLE.user },
    });

    const [{ password_hash: hash } = { password_hash: '' }] = await sql<{ password_hash: string }>(
      live.server.databaseUrl,
      'SELECT password_hash FROM users WHERE id = $1',
      [samId],
    );
    const again = await lastId();
    await asRequestRole([`UPDATE users SET password_hash = 'x' || password_hash WHERE id = ${samId}`]);
    const secret = await theChange(again);
    expect(secret.detail).toMatchObject({ changed: ['password_hash'] });
    expect(JSON.stringify(secret.detail)).not.toContain(hash.slice(-20));
    // A name corrected is no protected change.
    const renamed = await lastId();
    await asRequestRole([`UPDATE users SET name = 'Samuel Staff' WHERE id = ${samId}`]);
    expect(await eventsAfter(renamed)).toEqual([]);
  });

  it('flipping a client’s restriction is on the trail, and its sentence names the login', async () => {
    const before = await lastId();
    await asRequestRole([`UPDATE clients SET restricted = true WHERE id = ${clientId}`]);
    expect(await theChange(before)).toMatchObject({
      subject: `client:${clientId}`,
      detail: { table: 'clients', op: 'update', row: { id: clientId }, changed: ['restricted'], dbRole: TEST_REQUEST_ROLE.user },
    });
    await asRequestRole([`UPDATE clients SET restricted = false WHERE id = ${clientId}`]);
    const { items } = await live.director.audit.list.query({ action: 'db.change' });
    const sentences = items.filter((item) => item.subject === `client:${clientId}`).map(describeAuditEvent);
    expect(sentences).toContain(
      `The database login ${TEST_REQUEST_ROLE.user} changed the restriction of Nora Vale in the database, with no event of the app’s: restricted`,
    );
    // The database's rows chain like the app's: the trail verifies, as the app and as the owner check it.
    expect(await verifyTrailAs(live.server.databaseUrl)).toMatchObject({ ok: true });
    expect(await live.director.audit.verify.query()).toMatchObject({ ok: true });
  });
});

describe('a change made through the app', () => {
  it('is on the trail as the app’s own event, naming who made it, each confirmed by the database’s row naming it', async () => {
    const before = await lastId();
    const hold = await live.director.holds.place.mutate({ clientId, reason: 'Fourth dispute' });
    await live.director.holds.release.mutate({ holdId: hold.id });
    await live.director.access.addMember.mutate({ clientId, userId: deeId });
    const events = await eventsAfter(before);
    const idOf = (action: string) => Number(events.find((e) => e.action === action)!.id);
    expect(events.map((e) => [e.action, e.subject, e.user_id, e.detail.appEventId])).toEqual([
      ['hold.place', `client:${clientId}`, deeId, undefined],
      ['db.change', `client:${clientId}`, deeId, idOf('hold.place')],
      ['hold.release', `client:${clientId}`, deeId, undefined],
      ['db.change', `client:${clientId}`, deeId, idOf('hold.release')],
      ['access.member_add', `client:${clientId}`, deeId, undefined],
      ['db.change', `client:${clientId}`, deeId, idOf('access.member_add')],
    ]);
    const release = events.find((e) => e.action === 'db.change' && e.detail.appEventId === idOf('hold.release'))!;
    expect(release.detail).toMatchObject({ table: 'legal_holds', op: 'update', changed: ['released_at', 'released_by'] });
  });

  it('with no event of the app’s (a retention preview) is recorded by the database, naming the person the app acted for', async () => {
    const before = await lastId();
    const { batchId } = await live.director.retention.preview.query();
    const changes = (await eventsAfter(before)).filter((e) => e.action === 'db.change' && e.subject === `retention:${batchId}`);
    expect(changes.length).toBeGreaterThan(0);
    for (const change of changes) {
      expect(change).toMatchObject({ user_id: deeId, detail: { table: 'retention_batches', row: { id: batchId }, actorId: deeId } });
    }
    expect(await verifyTrailAs(live.server.databaseUrl)).toMatchObject({ ok: true });
  });
});
