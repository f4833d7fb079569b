import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApprovedBatch } from '../../server/records';
import { createLogger } from '../../server/core/logger';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { openLiveStream } from '../support/live-stream';
import { readPdfText } from '../support/pdf-text';
import { makeOldMatter as makeOldMatterIn } from '../support/records';
import { sql } from '../support/sql';
import { sessionCookie } from '../support/session-cookie';

// Erased is final and quiet (server/records/README.md "Records"): an erased client refuses every write
// about them, is left out of the Clients list (an Erased filter shows them) and says how they were
// erased; Erase knows about holds up front; certificates are read by people; requests show their due date.
let live: TLiveSetup;
const logger = createLogger('silent');
let directorCookie = '';

beforeAll(async () => {
  live = await startLiveSetup({ RETENTION_YEARS: '6', FIRM_TIME_ZONE: 'America/New_York' });
  directorCookie = await sessionCookie(live.server.url, 'dee@firm.test', 'director-password');
});
afterAll(() => live?.stop());

const makeOldMatter = (name: string, yearsAgo: number) => makeOldMatterIn(live.server.databaseUrl, name, yearsAgo, 'ERA');

async function destroyAndWait(batchId: string): Promise<void> {
  await runApprovedBatch(logger);
  await expect.poll(async () => (await live.director.retention.batch.query({ batchId })).state, { timeout: 15_000 }).toBe('done');
}

/** A client erased at their request (the request's note names them); returns the client, request and batch. */
async function eraseOnRequest(name: string) {
  const matter = await makeOldMatter(name, 1);
  const { id } = await live.director.erasure.request.mutate({
    clientId: matter.clientId,
    receivedAt: new Date(Date.now() - 86_400_000),
    note: `${name} asked by email`,
  });
  const { batchId } = await live.director.erasure.decide.mutate({ requestId: id, decision: 'erase' });
  await destroyAndWait(batchId!);
  return { matter, requestId: id, batchId: batchId! };
}

describe('an erased client', () => {
  it('refuses every write about them with one clear CONFLICT, and is left out of the list but for the Erased filter', async () => {
    const { matter, requestId, batchId } = await eraseOnRequest('Ezra Erasable');
    const refusal = {
      data: { code: 'CONFLICT' },
      message: expect.stringMatching(/^This client was erased on .+ and is read-only\.$/) as unknown,
    };
    await expect(
      live.staff.cases.create.mutate({ clientId: matter.clientId, reference: 'ERA-NEW-1', title: 'New matter' }),
    ).rejects.toMatchObject(refusal);
    await expect(live.staff.clients.addNumber.mutate({ clientId: matter.clientId, phone: '+447700900555' })).rejects.toMatchObject(refusal);
    await expect(live.staff.clients.setResponsible.mutate({ clientId: matter.clientId, userId: null })).rejects.toMatchObject(refusal);
    await expect(live.director.clients.clearOptOut.mutate({ clientId: matter.clientId })).rejects.toMatchObject(refusal);
    // Nothing is sent, scheduled or noted about them either.
    await expect(live.staff.chat.send.mutate({ clientId: matter.clientId, body: 'Hello' })).rejects.toMatchObject(refusal);
    await expect(
      live.staff.chat.schedule.mutate({ clientId: matter.clientId, body: 'Hello', sendAt: new Date(Date.now() + 3_600_000) }),
    ).rejects.toMatchObject(refusal);
    await expect(live.staff.chat.addNote.mutate({ clientId: matter.clientId, body: 'A note' })).rejects.toMatchObject(refusal);
    // Linking an unlinked number to them would file their messages again.
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata) VALUES ('chat', 'inbound', 'hello', NULL, '447700900777', '{}')`,
    );
    await expect(live.staff.inbox.link.mutate({ phone: '+447700900777', clientId: matter.clientId })).rejects.toMatchObject(refusal);
    expect(await sql(live.server.databaseUrl, 'SELECT client_id FROM communications WHERE peer_phone = $1', ['447700900777'])).toEqual([
      { client_id: null },
    ]);

    const listed = await live.staff.clients.list.query();
    expect(listed.map((c) => c.id)).not.toContain(matter.clientId);
    const erased = await live.staff.clients.list.query({ erased: true });
    expect(erased.map((c) => c.id)).toEqual([matter.clientId]);

    // The page says how they were erased, with the certificate and the request.
    const page = await live.staff.clients.get.query({ clientId: matter.clientId });
    expect(page.erasedAt).toBeInstanceOf(Date);
    expect(page.erasure).toEqual({ by: 'request', batchId, requestId });
    // The request's note named them: it goes with the name.
    const [request] = await live.director.erasure.list.query({ clientId: matter.clientId });
    expect(request).toMatchObject({ id: requestId, note: '', deadline: 'decided' });
    expect(await sql(live.server.databaseUrl, 'SELECT note FROM erasure_requests WHERE id = $1', [requestId])).toEqual([{ note: '' }]);
    // Nor does the audit trail keep it: nothing erases the trail.
    const trail = await sql<{ detail: unknown }>(live.server.databaseUrl, `SELECT detail FROM audit_events WHERE subject = $1`, [
      `client:${matter.clientId}`,
    ]);
    expect(trail.length).toBeGreaterThan(0);
    expect(JSON.stringify(trail)).not.toContain('Ezra');
  });

  it('leaves the inbox: no row of theirs in any filter, and nothing of theirs unread for anyone', async () => {
    const matter = await makeOldMatter('Iris Inboxed', 1);
    const listed = async (filter: 'all' | 'unread') =>
      (await live.staff.inbox.threads.query({ filter })).threads.some((t) => t.clientId === matter.clientId);
    const theirs = (await live.staff.inbox.threadSummary.query({ clientId: matter.clientId }))!.unread;
    expect(theirs).toBeGreaterThan(0);
    expect([await listed('all'), await listed('unread')]).toEqual([true, true]);
    const before = await live.staff.inbox.unreadCount.query();

    const stream = await openLiveStream(live.server.url, live.staffCookie);
    try {
      const { id } = await live.director.erasure.request.mutate({ clientId: matter.clientId, receivedAt: new Date(), note: '' });
      const { batchId } = await live.director.erasure.decide.mutate({ requestId: id, decision: 'erase' });
      await destroyAndWait(batchId!);
      // A page already open is told to read again: the client leaves it at once, not at its next reload.
      await stream.waitFor((frame) => frame.data?.includes('"resync"') ?? false, 10_000);
    } finally {
      stream.close();
    }
    expect([await listed('all'), await listed('unread')]).toEqual([false, false]);
    // Each record says which erased it, wherever it is shown.
    expect(
      await sql(live.server.databaseUrl, "SELECT DISTINCT metadata->>'erased_by' AS by FROM communications WHERE client_id = $1", [
        matter.clientId,
      ]),
    ).toEqual([{ by: 'request' }]);
    expect(await live.staff.inbox.unreadCount.query()).toEqual({
      conversations: before.conversations - 1,
      messages: before.messages - theirs,
    });
  });

  it('erased under the retention policy says so', async () => {
    const old = await makeOldMatter('Rhoda Retained', 8);
    const preview = await live.director.retention.preview.query();
    await live.director.retention.destroy.mutate({ batchId: preview.batchId });
    await destroyAndWait(preview.batchId);
    const page = await live.director.clients.get.query({ clientId: old.clientId });
    expect(page.erasure).toEqual({ by: 'retention', batchId: preview.batchId, requestId: null });
  });
});

describe('erasure requests', () => {
  it('name the hold up front, and show their due date with a warning within a week and overdue after', async () => {
    const held = await makeOldMatter('Holly Held', 1);
    await live.director.holds.place.mutate({ caseId: held.caseId, reason: 'Appeal lodged' });
    const onHold = await live.director.erasure.request.mutate({ clientId: held.clientId, receivedAt: new Date(), note: '' });
    const soon = await makeOldMatter('Sunny Soon', 1);
    const dueSoon = await live.director.erasure.request.mutate({
      clientId: soon.clientId,
      receivedAt: new Date(Date.now() - 27 * 86_400_000),
      note: '',
    });
    const late = await makeOldMatter('Larry Late', 1);
    const overdue = await live.director.erasure.request.mutate({
      clientId: late.clientId,
      receivedAt: new Date(Date.now() - 40 * 86_400_000),
      note: '',
    });
    const list = await live.director.erasure.list.query();
    const byId = new Map(list.map((r) => [r.id, r]));
    expect(byId.get(onHold.id)).toMatchObject({
      deadline: 'due',
      hold: { reason: 'Appeal lodged', on: 'case', label: held.reference },
    });
    expect(byId.get(dueSoon.id)).toMatchObject({ deadline: 'soon', hold: null });
    expect(byId.get(overdue.id)).toMatchObject({ deadline: 'overdue' });
    // One calendar month after the day received.
    const [row] = await sql<{ due: Date }>(
      live.server.databaseUrl,
      "SELECT received_at + interval '1 month' AS due FROM erasure_requests WHERE id = $1",
      [overdue.id],
    );
    expect(byId.get(overdue.id)!.dueAt).toEqual(row!.due);
    // The server still refuses it.
    await expect(live.director.erasure.decide.mutate({ requestId: onHold.id, decision: 'erase' })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
  });

  it('count the client’s open cases up front, which the server refuses to erase past', async () => {
    const open = await makeOldMatter('Opal Open', 1);
    await live.staff.cases.create.mutate({ clientId: open.clientId, reference: 'ERA-OPEN-1', title: 'Still running' });
    const request = await live.director.erasure.request.mutate({ clientId: open.clientId, receivedAt: new Date(), note: '' });
    const listed = (await live.director.erasure.list.query()).find((r) => r.id === request.id);
    expect(listed).toMatchObject({ openCases: 1, hold: null });
    await expect(live.director.erasure.decide.mutate({ requestId: request.id, decision: 'erase' })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
      message: 'This client has an open case: close it before erasing.',
    });
  });
});

describe('the destruction certificate', () => {
  it("is in the firm's time zone, counts in words, and names the erasure request", async () => {
    const { requestId, batchId } = await eraseOnRequest('Cecil Certified');
    const pdf = await fetch(`${live.server.url}/api/retention/${batchId}.pdf`, { headers: { cookie: directorCookie } });
    expect(pdf.status).toBe(200);
    const { text } = await readPdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(text).toContain(`erasure request #${requestId}`);
    expect(text).toContain('America/New_York');
    expect(text).toMatch(/Erased: 3 records, 1 file \([\d.]+ bytes?\), 1 case and 1 client/);
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(text).not.toContain('1 clients');
  });

  it('leaves a preview with nothing to destroy out of the batch history', async () => {
    // Everything due was erased by the tests above: this preview finds nothing.
    const empty = await live.director.retention.preview.query();
    expect(empty).toMatchObject({ records: 0, cases: 0, clients: 0 });
    const history = await live.director.retention.batches.query();
    expect(history.map((b) => b.id)).not.toContain(empty.batchId);
  });
});

// Last: it leaves one more erased client behind.
describe('an erased client, imported history', () => {
  it('takes the phone exports imported to their file with them: bytes and names gone, the fingerprint kept', async () => {
    const matter = await makeOldMatter('Ines Imported', 1);
    const form = new FormData();
    form.append(
      'file',
      new Blob(['12/02/2026, 09:06 - Ines Imported: My secret plan\n12/02/2026, 09:07 - Sam Staff: Noted\n']),
      'ines.txt',
    );
    const res = await fetch(`${live.server.url}/api/imports/whatsapp`, {
      method: 'POST',
      headers: { cookie: live.staffCookie, origin: live.server.url },
      body: form,
    });
    const { importId, fileSha256 } = (await res.json()) as { importId: string; fileSha256: string };
    await live.staff.imports.commit.mutate({ importId, clientId: matter.clientId, firmParticipants: ['Sam Staff'] });
    const { id } = await live.director.erasure.request.mutate({
      clientId: matter.clientId,
      receivedAt: new Date(Date.now() - 86_400_000),
      note: '',
    });
    const { batchId } = await live.director.erasure.decide.mutate({ requestId: id, decision: 'erase' });
    await destroyAndWait(batchId!);
    const [row] = await sql<{
      file_name: string;
      participants: unknown;
      file_sha256: string;
      chunks: number;
      erased: boolean;
      attachment_name: string | null;
    }>(
      live.server.databaseUrl,
      `SELECT i.file_name, i.summary->'participants' AS participants, i.file_sha256, a.erased_at IS NOT NULL AS erased, a.file_name AS attachment_name,
              (SELECT count(*)::int FROM attachment_chunks b WHERE b.attachment_id = i.attachment_id) AS chunks
       FROM phone_imports i JOIN attachments a ON a.id = i.attachment_id WHERE i.id = $1`,
      [importId],
    );
    expect(row).toEqual({
      file_name: 'Erased export',
      participants: [],
      file_sha256: fileSha256,
      chunks: 0,
      erased: true,
      attachment_name: null,
    });
  });
});
