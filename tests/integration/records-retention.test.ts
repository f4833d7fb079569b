import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApprovedBatch } from '../../server/records';
import { createLogger } from '../../server/core/logger';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { readPdfText } from '../support/pdf-text';
import { match } from '../support/matchers';
import { makeOldMatter as makeOldMatterIn, sha256 } from '../support/records';
import { sql } from '../support/sql';
import { sessionCookie } from '../support/session-cookie';

// Retention, legal holds and erasure requests (server/records/README.md "Records"): what is due is previewed, a
// director approves it, the worker erases it in chunks (checking each item again), and a
// certificate lists every erased item with the hash of what went. Held matters are never in a batch.
let live: TLiveSetup;
const logger = createLogger('silent');

beforeAll(async () => {
  live = await startLiveSetup({ RETENTION_YEARS: '6' });
});
afterAll(() => live?.stop());

const makeOldMatter = (name: string, yearsAgo: number) => makeOldMatterIn(live.server.databaseUrl, name, yearsAgo);

/** Runs the worker until the batch is done (the server's own poller may take it first: either way it ends done). */
async function destroyAndWait(batchId: string): Promise<void> {
  await runApprovedBatch(logger);
  await expect.poll(async () => (await live.director.retention.batch.query({ batchId })).state, { timeout: 15_000 }).toBe('done');
}

async function downloadCertificate(batchId: string, format: 'pdf' | 'json', cookie: string) {
  return fetch(`${live.server.url}/api/retention/${batchId}.${format}`, { headers: { cookie } });
}

let directorCookie = '';
beforeAll(async () => {
  directorCookie = await sessionCookie(live.server.url, 'dee@firm.test', 'director-password');
});

describe('retention', () => {
  it('previews what is due, destroys it on approval, keeps ids and hashes, and certifies it', async () => {
    const old = await makeOldMatter('Olive Oldfield', 7);
    const recent = await makeOldMatter('Rita Recent', 2);
    const preview = await live.director.retention.preview.query();
    expect(preview).toMatchObject({ records: 3, files: 1, cases: 1, clients: 1, retentionYears: 6 });
    expect(preview.bytes).toBeGreaterThan(0);
    const batch = await live.director.retention.batch.query({ batchId: preview.batchId });
    expect(batch.subjects.map((s) => s.label).sort()).toEqual([`${old.reference} Olive Oldfield v Landlord`, 'Olive Oldfield']);
    await expect(live.staff.retention.preview.query()).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    // Nothing is erased by a preview.
    expect(await sql(live.server.databaseUrl, 'SELECT count(*)::int AS n FROM communications WHERE erased_at IS NOT NULL')).toEqual([
      { n: 0 },
    ]);

    await live.director.retention.destroy.mutate({ batchId: preview.batchId });
    await destroyAndWait(preview.batchId);

    const records = await sql<{
      id: number;
      body: string;
      erased_sha256: string;
      metadata: Record<string, unknown>;
      peer_phone: string | null;
    }>(live.server.databaseUrl, 'SELECT id, body, erased_sha256, metadata, peer_phone FROM communications WHERE id = ANY($1) ORDER BY id', [
      old.records,
    ]);
    expect(records.map((r) => r.body)).toEqual(['', '', '']);
    expect(records.map((r) => r.erased_sha256)).toEqual(old.bodies.map((b) => sha256(b)));
    expect(records[0]!.metadata).toEqual({
      chat_msg_id: `wamid.${old.reference.toLowerCase()}-0`,
      erased_at: expect.any(String) as unknown,
      erased_by: 'retention',
    });
    expect(records.every((r) => r.peer_phone === null)).toBe(true);
    const [file] = await sql<{ file_name: string | null; erased_at: Date | null; chunks: number }>(
      live.server.databaseUrl,
      'SELECT file_name, erased_at, (SELECT count(*)::int FROM attachment_chunks WHERE attachment_id = a.id) AS chunks FROM attachments a WHERE id = $1',
      [old.fileId],
    );
    expect(file).toMatchObject({ file_name: null, chunks: 0 });
    const [client] = await sql<{ name: string; email: string | null; numbers: number }>(
      live.server.databaseUrl,
      'SELECT name, email, (SELECT count(*)::int FROM client_numbers WHERE client_id = c.id) AS numbers FROM clients c WHERE id = $1',
      [old.clientId],
    );
    expect(client).toEqual({ name: 'Erased client', email: null, numbers: 0 });
    // Nothing of the message or the name is left to find.
    const { items } = await live.director.inbox.search.query({ q: 'Oldfield' });
    expect(items).toEqual([]);
    const media = await fetch(`${live.server.url}/api/media/${old.fileId}`, { headers: { cookie: directorCookie } });
    expect(media.status).toBe(410);
    // The recent matter is untouched.
    const [kept] = await sql<{ n: number }>(
      live.server.databaseUrl,
      'SELECT count(*)::int AS n FROM communications WHERE id = ANY($1) AND erased_at IS NULL',
      [recent.records],
    );
    expect(kept!.n).toBe(3);

    const json = await downloadCertificate(preview.batchId, 'json', directorCookie);
    expect(json.status).toBe(200);
    const text = await json.text();
    expect(json.headers.get('x-content-sha256')).toBe(sha256(text));
    const certificate = JSON.parse(text) as {
      totals: Record<string, number>;
      items: { kind: string; id: number; sha256?: string }[];
      auditHead: { id: number };
    };
    expect(certificate.totals).toMatchObject({ records: 3, files: 1, cases: 1, clients: 1, leftOut: 0 });
    expect(certificate.items.filter((i) => i.kind === 'record')).toEqual(
      old.records.map((id, i) => ({ kind: 'record', id, sha256: sha256(old.bodies[i]!), bytes: Buffer.byteLength(old.bodies[i]!) })),
    );
    expect(certificate.items.find((i) => i.kind === 'file')).toMatchObject({
      id: old.fileId,
      sha256: sha256(Buffer.from('%PDF-1.4 the lease of Olive Oldfield')),
    });
    expect(text).not.toContain('Olive');
    const [destroyed] = await sql<{ id: string; user_id: number; detail: Record<string, unknown> }>(
      live.server.databaseUrl,
      "SELECT id::text, user_id, detail FROM audit_events WHERE action = 'retention.destroy'",
    );
    expect(destroyed!.detail).toMatchObject({ batchId: preview.batchId, records: 3, files: 1, cases: 1, clients: 1, leftOut: 0 });
    expect(certificate.auditHead.id).toBe(Number(destroyed!.id));
    const pdf = await downloadCertificate(preview.batchId, 'pdf', directorCookie);
    expect(pdf.status).toBe(200);
    const { text: pdfText } = await readPdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(pdfText).toContain('Destruction certificate');
    expect(pdfText).toContain(sha256(old.bodies[0]!));
    // Staff may not read certificates; a batch twice destroyed is refused.
    const staffCertificate = await downloadCertificate(preview.batchId, 'json', live.staffCookie);
    expect(staffCertificate.status).toBe(403);
    await expect(live.director.retention.destroy.mutate({ batchId: preview.batchId })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
  });

  it('never takes a held matter, and leaves out one held after the preview, saying so', async () => {
    const heldBefore = await makeOldMatter('Hal Heldbefore', 8);
    const heldAfter = await makeOldMatter('Harriet Heldafter', 8);
    await live.director.holds.place.mutate({ clientId: heldBefore.clientId, reason: 'Dispute over the deposit' });
    const preview = await live.director.retention.preview.query();
    const batch = await live.director.retention.batch.query({ batchId: preview.batchId });
    expect(batch.subjects.map((s) => s.label)).not.toContain('Hal Heldbefore');
    expect(batch.subjects.map((s) => s.label)).toContain('Harriet Heldafter');
    // A hold on the case only, after the preview: its records, the case and the client (whose name the case needs) are kept.
    await live.director.holds.place.mutate({ caseId: heldAfter.caseId, reason: 'Appeal lodged' });
    await live.director.retention.destroy.mutate({ batchId: preview.batchId });
    await destroyAndWait(preview.batchId);
    const done = await live.director.retention.batch.query({ batchId: preview.batchId });
    expect(done.leftOut).toBeGreaterThanOrEqual(4); // two records on the case, its file, the case, the client
    expect(done.subjects.find((s) => s.label.includes('Harriet'))).toMatchObject({ leftOut: 'hold' });
    const rows = await sql<{ id: number; erased: boolean }>(
      live.server.databaseUrl,
      'SELECT id, erased_at IS NOT NULL AS erased FROM communications WHERE id = ANY($1) ORDER BY id',
      [[...heldBefore.records, ...heldAfter.records]],
    );
    // Only Harriet's record on no case went: the hold is on her case.
    expect(rows.filter((r) => r.erased).map((r) => r.id)).toEqual([heldAfter.records[2]]);
    const certificate = (await (await downloadCertificate(preview.batchId, 'json', directorCookie)).json()) as {
      items: { kind: string; id: number; leftOut?: string }[];
    };
    expect(certificate.items).toContainEqual({ kind: 'case', id: heldAfter.caseId, leftOut: 'hold' });
    expect(certificate.items).toContainEqual({ kind: 'record', id: heldAfter.records[0], leftOut: 'hold' });
  });

  it('of two approvals at once one wins; a superseded or unknown batch is refused', async () => {
    await makeOldMatter('Twice Approved', 9);
    const first = await live.director.retention.preview.query();
    const second = await live.director.retention.preview.query();
    await expect(live.director.retention.destroy.mutate({ batchId: first.batchId })).rejects.toMatchObject({
      message: 'A newer preview replaced this batch: review that one instead.',
    });
    const results = await Promise.allSettled([
      live.director.retention.destroy.mutate({ batchId: second.batchId }),
      live.director.retention.destroy.mutate({ batchId: second.batchId }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ data: { code: 'CONFLICT' } });
    await destroyAndWait(second.batchId);
    await expect(live.director.retention.batch.query({ batchId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({
      data: { code: 'NOT_FOUND' },
    });
  });
});

describe('legal holds', () => {
  it('are placed and released by directors with a reason, listed, audited; a deleted or unknown case is NOT_FOUND', async () => {
    const matter = await makeOldMatter('Hold Listed', 1);
    const { id } = await live.director.holds.place.mutate({ caseId: matter.caseId, reason: 'Litigation expected' });
    await expect(live.staff.holds.place.mutate({ caseId: matter.caseId, reason: 'x' })).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
    await expect(live.director.holds.place.mutate({ caseId: matter.caseId, reason: '   ' })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
    });
    const listed = await live.director.holds.list.query({ clientId: matter.clientId });
    expect(listed).toEqual([
      match.objectContaining({
        id,
        reason: 'Litigation expected',
        subject: match.objectContaining({ type: 'case', id: matter.caseId }),
        releasedAt: null,
      }),
    ]);
    // Everyone who may see the case is told on its page; the client's page is not (the hold is the case's).
    expect((await live.staff.cases.get.query({ caseId: matter.caseId })).hold).toMatchObject({
      reason: 'Litigation expected',
      placedBy: 'Dee Director',
      on: 'case',
    });
    expect((await live.staff.clients.get.query({ clientId: matter.clientId })).hold).toBeNull();
    await live.director.holds.release.mutate({ holdId: id });
    expect((await live.staff.cases.get.query({ caseId: matter.caseId })).hold).toBeNull();
    await expect(live.director.holds.release.mutate({ holdId: id })).rejects.toMatchObject({ data: { code: 'CONFLICT' } });
    expect(await live.director.holds.list.query({ clientId: matter.clientId })).toEqual([]);
    expect(await live.director.holds.list.query({ clientId: matter.clientId, includeReleased: true })).toHaveLength(1);
    const audited = await sql<{ action: string; subject: string }>(
      live.server.databaseUrl,
      "SELECT action, subject FROM audit_events WHERE action LIKE 'hold.%' AND subject = $1 ORDER BY id",
      [`case:${matter.caseId}`],
    );
    expect(audited).toEqual([
      { action: 'hold.place', subject: `case:${matter.caseId}` },
      { action: 'hold.release', subject: `case:${matter.caseId}` },
    ]);
    await sql(live.server.databaseUrl, 'DELETE FROM attachments WHERE communication_id = ANY($1)', [matter.records]);
    await sql(live.server.databaseUrl, 'DELETE FROM communications WHERE case_id = $1', [matter.caseId]);
    await sql(live.server.databaseUrl, 'DELETE FROM legal_holds WHERE case_id = $1', [matter.caseId]);
    await sql(live.server.databaseUrl, 'DELETE FROM cases WHERE id = $1', [matter.caseId]);
    await expect(live.director.holds.place.mutate({ caseId: matter.caseId, reason: 'Too late' })).rejects.toMatchObject({
      data: { code: 'NOT_FOUND' },
      message: 'Case not found.',
    });
  });
});

describe('erasure requests', () => {
  it('are recorded and decided: refused on fixed grounds, refused by a hold, or erased with a certificate', async () => {
    await expect(live.director.erasure.request.mutate({ clientId: 999_999, receivedAt: new Date(), note: '' })).rejects.toMatchObject({
      data: { code: 'NOT_FOUND' },
    });
    const matter = await makeOldMatter('Erin Erasure', 1);
    // Closing a closed case changes nothing; reopening clears its closing, closing again stamps it anew.
    expect((await live.director.cases.setStatus.mutate({ caseId: matter.caseId, status: 'open' })).closedAt).toBeNull();
    const closed = await live.director.cases.setStatus.mutate({ caseId: matter.caseId, status: 'closed' });
    expect(Date.now() - closed.closedAt!.getTime()).toBeLessThan(60_000);
    const received = new Date(Date.now() - 3 * 86_400_000);
    const { id } = await live.director.erasure.request.mutate({ clientId: matter.clientId, receivedAt: received, note: 'By email' });
    await expect(live.director.erasure.decide.mutate({ requestId: id, decision: 'refuse' })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
    });
    const hold = await live.director.holds.place.mutate({ clientId: matter.clientId, reason: 'Claim threatened' });
    await expect(live.director.erasure.decide.mutate({ requestId: id, decision: 'erase' })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
      message: 'A legal hold covers this client: refuse on the grounds of the hold, or release the hold first.',
    });
    await live.director.holds.release.mutate({ holdId: hold.id });
    // A send still scheduled for them, one that made a record of theirs, and their out-of-hours reply's mark.
    await sql(
      live.server.databaseUrl,
      `INSERT INTO scheduled_sends (kind, created_by, client_id, to_digits, body, send_at, state, communication_id)
       SELECT 'text', u.id, $1::int, $2::text, 'Erin, your secret appointment', now() + interval '30 days', 'scheduled', NULL FROM users u WHERE u.email = 'dee@firm.test'
       UNION ALL
       SELECT 'text', u.id, $1::int, $2::text, 'Erin, as we discussed', now() - interval '1 day', 'sent', $3::int FROM users u WHERE u.email = 'dee@firm.test'`,
      [matter.clientId, matter.digits, matter.records[0]],
    );
    await sql(live.server.databaseUrl, `INSERT INTO auto_reply_marks (digits, last_at) VALUES ($1, now())`, [matter.digits]);
    const decided = await live.director.erasure.decide.mutate({ requestId: id, decision: 'erase' });
    expect(decided.batchId).toEqual(expect.any(String));
    await expect(live.director.erasure.decide.mutate({ requestId: id, decision: 'refuse', grounds: 'hold' })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
    await destroyAndWait(decided.batchId!);
    const [client] = await sql<{ name: string }>(live.server.databaseUrl, 'SELECT name FROM clients WHERE id = $1', [matter.clientId]);
    expect(client!.name).toBe('Erased client');
    // Nothing scheduled for them is left: the send still due and the one that made their record.
    expect(await sql(live.server.databaseUrl, 'SELECT state FROM scheduled_sends WHERE client_id = $1', [matter.clientId])).toEqual([]);
    expect(await sql(live.server.databaseUrl, 'SELECT digits FROM auto_reply_marks WHERE digits = $1', [matter.digits])).toEqual([]);
    const [listed] = await live.director.erasure.list.query({ clientId: matter.clientId });
    expect(listed).toMatchObject({
      id,
      decision: 'erase',
      client: { erased: true },
      batch: { id: decided.batchId, state: 'done' },
      receivedAt: received,
    });
    const certificate = await downloadCertificate(decided.batchId!, 'json', directorCookie);
    expect((await certificate.json()) as { kind: string; totals: { records: number } }).toMatchObject({
      kind: 'erasure',
      totals: { records: 3 },
    });

    const other = await makeOldMatter('Rex Refused', 1);
    const second = await live.director.erasure.request.mutate({ clientId: other.clientId, receivedAt: new Date(), note: '' });
    await live.director.erasure.decide.mutate({ requestId: second.id, decision: 'refuse', grounds: 'legal_claims' });
    const audit = await sql<{ action: string; detail: Record<string, unknown> }>(
      live.server.databaseUrl,
      "SELECT action, detail FROM audit_events WHERE action LIKE 'erasure.%' AND subject = $1 ORDER BY id",
      [`client:${other.clientId}`],
    );
    expect(audit).toEqual([
      { action: 'erasure.request', detail: match.objectContaining({ requestId: second.id }) },
      { action: 'erasure.decide', detail: { requestId: second.id, decision: 'refuse', grounds: 'legal_claims' } },
    ]);
  });
});

describe('the file access log', () => {
  it('records the first read of a file by each person each day, and none after', async () => {
    const matter = await makeOldMatter('Fiona Files', 1);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${live.server.url}/api/media/${matter.fileId}`, {
        headers: { cookie: live.staffCookie, range: 'bytes=0-3' },
      });
      expect(res.status).toBe(206);
    }
    const res = await fetch(`${live.server.url}/api/media/${matter.fileId}`, { headers: { cookie: directorCookie } });
    expect(res.status).toBe(200);
    const rows = await sql<{ user_id: number; subject: string; detail: Record<string, unknown> }>(
      live.server.databaseUrl,
      "SELECT user_id, subject, detail FROM audit_events WHERE action = 'media.view' AND detail->>'attachmentId' = $1 ORDER BY id",
      [String(matter.fileId)],
    );
    expect(rows.map((r) => r.subject)).toEqual([`communication:${matter.records[0]}`, `communication:${matter.records[0]}`]);
    expect(new Set(rows.map((r) => r.user_id)).size).toBe(2);
  });
});
