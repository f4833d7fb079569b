import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { User } from '../../server/core/db/models/index';
import { MAX_EXPORTS_AT_ONCE } from '../../server/export/export-route';
import { createCase } from '../../server/crm/cases';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { readPdfText } from '../support/pdf-text';
import { sql } from '../support/sql';

// Evidence exports (server/export/README.md "Evidence exports"): a client's or a case's chat as
// JSON and PDF, with the body's SHA-256 in a header and in the audit trail.
const CLIENT = '447700900123';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// A JSON export, as far as these tests read it by name; loose, so the rest of it is kept for toMatchObject.
const ZExportedMessage = z.looseObject({
  body: z.string(),
  providerTime: z.string().nullable(),
  storedTime: z.string(),
  receipts: z.record(z.string(), z.unknown()),
  edits: z.array(z.unknown()),
});
const ZJsonExport = z.looseObject({
  period: z.looseObject({ from: z.string(), to: z.string() }).nullable(),
  count: z.number(),
  notOnCase: z.number().nullable(),
  exportedAt: z.string(),
  auditHead: z.object({ id: z.number().nullable(), hash: z.string() }),
  messages: z.array(ZExportedMessage),
});
const readJsonExport = (bytes: Buffer) => ZJsonExport.parse(JSON.parse(bytes.toString('utf8')));

let live: TLiveSetup;
let clientId: number;
let caseId: number;
let staffId: number;
let inboundId: string;
beforeAll(async () => {
  live = await startLiveSetup({ FIRM_NAME: 'Hart & Co Solicitors' }, { mediaQueue: { pollMs: 50 } });
  staffId = (await User.findOne({ where: { email: 'sam@firm.test' } }))!.id;
  clientId = (await createClient({ name: 'Amelia Hart', phone: `+${CLIENT}` })).id;
  caseId = (await createCase({ clientId, reference: 'HART-001', title: 'Deposit dispute' })).id;

  inboundId = (await live.sim.sendInbound(CLIENT, 'Did the letting agent reply?', 'Amelia')).id;
  const sent = await live.staff.chat.send.mutate({ clientId, caseId, body: 'Not yet; their deadline is Friday.' });
  await live.sim.postReceipt(sent.metadata.chat_msg_id!, 'sent', CLIENT);
  await live.sim.postReceipt(sent.metadata.chat_msg_id!, 'delivered', CLIENT);
  await live.sim.postReceipt(sent.metadata.chat_msg_id!, 'read', CLIENT);
  const photo = await live.sim.sendInboundKind({
    kind: 'image',
    from: CLIENT,
    bytesBase64: PNG.toString('base64'),
    mimeType: 'image/png',
    caption: 'The check-out report',
  });
  await live.sim.sendInboundKind({ kind: 'edit', from: CLIENT, targetId: inboundId, body: 'Did the letting agent reply yet?' });
  await vi.waitFor(async () => expect((await sql(live.server.databaseUrl, `SELECT state FROM attachments`))[0]?.state).toBe('stored'), {
    timeout: 10_000,
    interval: 50,
  });
  // Inbound messages on the case, as a member of staff would file them.
  await sql(live.server.databaseUrl, `UPDATE communications SET case_id = $1 WHERE metadata->>'chat_msg_id' = $2`, [caseId, photo.id]);
}, 30_000);
afterAll(() => live?.stop());

const exportUrl = (path: string) => `${live.server.url}/api/export/${path}`;
async function download(path: string, cookie: string | null = live.staffCookie) {
  const res = await fetch(exportUrl(path), { headers: cookie ? { cookie } : {} });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('JSON export', () => {
  it("holds every message of the client's chat with ids, times, sender, receipts and file hashes; the header's hash is the body's", async () => {
    const { res, bytes } = await download(`client/${clientId}.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-content-sha256')).toBe(sha256(bytes));
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="Chat record - Amelia Hart - \d{4}-\d\d-\d\d\.json"$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = readJsonExport(bytes);
    expect(body).toMatchObject({
      firm: 'Hart & Co Solicitors',
      subject: { type: 'client', id: clientId, name: 'Amelia Hart', numbers: [CLIENT] },
      count: 3,
      notOnCase: null,
      exportedBy: { id: staffId, name: 'Sam Staff', email: 'sam@firm.test' },
      // No business hours saved and no FIRM_TIME_ZONE: the firm's clock is the default (server/export/README.md "Evidence exports").
      timeZone: 'Europe/London',
    });
    expect(Date.parse(body.exportedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(body.period!.from <= body.period!.to).toBe(true);
    // The trail's head as the export saw it: the export's own audit row is the next one (server/records/README.md "Records").
    const [exported] = await sql<{ prev_hash: string; id: string }>(
      live.server.databaseUrl,
      "SELECT prev_hash, id::text FROM audit_events WHERE action = 'export.create' AND detail->>'sha256' = $1",
      [sha256(bytes)],
    );
    expect(body.auditHead.hash).toBe(exported!.prev_hash);
    expect(body.auditHead.id).toBeLessThan(Number(exported!.id));
    const [question, answer, photo] = body.messages;
    expect(question).toMatchObject({
      direction: 'inbound',
      caseReference: null,
      sentBy: null,
      body: 'Did the letting agent reply yet?',
      chatMsgId: inboundId,
      peerPhone: CLIENT,
      contactName: 'Amelia',
      edits: [{ body: 'Did the letting agent reply?' }],
      replyTo: null,
      quoted: null,
      buttons: null,
      resentFrom: null,
    });
    expect(question!.providerTime).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(question!.storedTime).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(answer).toMatchObject({
      direction: 'outbound',
      sentBy: { id: staffId, name: 'Sam Staff' },
      body: 'Not yet; their deadline is Friday.',
      status: 'read',
      caseReference: 'HART-001',
    });
    expect(Object.keys(answer!.receipts).sort()).toEqual(['delivered', 'read', 'sent']);
    expect(photo).toMatchObject({
      kind: 'image',
      body: 'The check-out report',
      caseReference: 'HART-001',
      attachments: [
        { exhibit: 1, kind: 'image', mimeType: 'image/png', size: PNG.length, sha256: sha256(PNG), state: 'stored', destroyed: false },
      ],
    });
  });

  it('of a case holds only the messages filed on it', async () => {
    const { res, bytes } = await download(`case/${caseId}.json`);
    expect(res.status).toBe(200);
    const body = readJsonExport(bytes);
    expect(body.subject).toMatchObject({
      type: 'case',
      id: caseId,
      name: 'Deposit dispute',
      reference: 'HART-001',
      clientName: 'Amelia Hart',
    });
    expect(body.messages.map((m) => m.body)).toEqual(['Not yet; their deadline is Friday.', 'The check-out report']);
    expect(body.count).toBe(2);
    expect(body.notOnCase).toBe(1); // the question was never filed on the case: the header says so
  });

  it('of a chat with no messages is a header and an empty list', async () => {
    const quiet = await createClient({ name: 'Quiet Client', phone: '+447700900999' });
    const body = readJsonExport((await download(`client/${quiet.id}.json`)).bytes);
    expect(body).toMatchObject({ count: 0, period: null, messages: [] });
  });

  it('crosses pages of records stored in the same millisecond without losing or repeating one', async () => {
    const many = await createClient({ name: 'Busy Client', phone: '+447700900555' });
    // 1,234 records 1 µs apart: a cursor rounded to milliseconds would repeat or skip some.
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
       SELECT 'chat', 'inbound', 'Message ' || g, NULL, $1, '447700900555', '{}', '{}', timestamptz '2026-01-01' + g * interval '1 microsecond', now()
       FROM generate_series(1, 1234) g`,
      [many.id],
    );
    const body = readJsonExport((await download(`client/${many.id}.json`)).bytes);
    expect(body.count).toBe(1234);
    expect(body.messages.map((m) => m.body)).toEqual(Array.from({ length: 1234 }, (_, i) => `Message ${i + 1}`));
  });
});

describe('PDF export', () => {
  it('is a PDF whose text names the firm, subject, period, exporter and every message with its ids and times', async () => {
    const { res, bytes } = await download(`case/${caseId}.pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('x-content-sha256')).toBe(sha256(bytes));
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = (await readPdfText(bytes)).text.replace(/\s+/g, ' ');
    for (const expected of [
      'Chat record: case HART-001',
      'Firm: Hart & Co Solicitors',
      'Case HART-001 "Deposit dispute"',
      'for Amelia Hart',
      '+44 7700 900123',
      'Exported by: Sam Staff (sam@firm.test)',
      'Messages: 2: those filed on this case. 1 other chat message with Amelia Hart is not filed on it',
      'Not yet; their deadline is Friday.',
      'sent by Sam Staff',
      'The check-out report',
      'Time zone: Europe/London',
      // Not a picture sharp can read (a PNG's first bytes only): listed as an exhibit instead of drawn.
      `Exhibit 1: image, no file name · bundle file exhibits/001-file.png · image/png · ${PNG.length} bytes · SHA-256 ${sha256(PNG)} · photo not drawn: not a picture this system can read`,
    ])
      expect(text).toContain(expected);
    // The firm's clock (GMT or BST in London), the same moment in UTC beside it (export-pdf.test.ts tests the formats).
    const time = String.raw`\d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d (GMT|BST) \((\d{1,2} [A-Z][a-z]{2} \d{4} )?\d\d:\d\d:\d\d UTC\)`;
    expect(text).toMatch(new RegExp(`Period: ${time} to ${time}`));
    expect(text).toMatch(new RegExp(`receipts: sent ${time} · delivered ${time} · read ${time}`));
  });

  it("of a client names the case each message is filed on; a case's does not repeat its own", async () => {
    const client = (await readPdfText((await download(`client/${clientId}.pdf`)).bytes)).text.replace(/\s+/g, ' ');
    expect(client).toMatch(/· sent by Sam Staff · to \+44 7700 900123 · case HART-001 Not yet; their deadline is Friday\./);
    expect(client).toMatch(/· From the client · \+44 7700 900123 \(profile name "[^"]+"\) · case HART-001 The check-out report/);
    expect(client).toMatch(/· From the client · \+44 7700 900123 \(profile name "Amelia"\) Did the letting agent reply yet\?/);
    const onCase = (await readPdfText((await download(`case/${caseId}.pdf`)).bytes)).text.replace(/\s+/g, ' ');
    expect(onCase).toContain('· to +44 7700 900123 Not yet; their deadline is Friday.');
  });

  it('writes what the font cannot draw as its code, wraps tab- and CJK-separated runs inside the margin, and counts piled-up combining marks', async () => {
    const wide = await createClient({ name: 'Wide Text', phone: '+447700900888' });
    const tokens = Array.from({ length: 300 }, (_, i) => `n${String(i).padStart(3, '0')}`);
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
       VALUES ('chat', 'inbound', $2, NULL, $1, '447700900888', '{}', '{}', now(), now()),
              ('chat', 'inbound', $3, NULL, $1, '447700900888', '{}', '{}', now(), now()),
              ('chat', 'inbound', $4, NULL, $1, '447700900888', '{}', '{}', now(), now())`,
      [wide.id, tokens.join('\t'), tokens.join('漢'), `Z${'\u0301'.repeat(500)} done`],
    );
    const text = (await readPdfText((await download(`client/${wide.id}.pdf`)).bytes)).text.replace(/\s+|\u200b/g, '');
    expect(tokens.filter((token) => text.includes(token))).toEqual(tokens); // none ran off the page
    expect(text).toContain('n000[U+0009]n001');
    expect(text).toContain('n000[U+6F22]n001');
    expect(text).toContain('[+497marks]done');
  });

  it('pages by size as well as count: messages with megabytes of edits export whole, in order', async () => {
    const edited = await createClient({ name: 'Edited A Lot', phone: '+447700900444' });
    const edits = JSON.stringify({ edits: Array.from({ length: 300 }, (_, i) => ({ body: `${i} ${'e'.repeat(4000)}`, at: null })) });
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
       SELECT 'chat', 'inbound', 'Edited ' || g, NULL, $1, '447700900444', $2::jsonb, '{}', now() + g * interval '1 second', now()
       FROM generate_series(1, 4) g`,
      [edited.id, edits],
    );
    const body = readJsonExport((await download(`client/${edited.id}.json`)).bytes);
    expect(body.messages.map((m) => [m.body, m.edits.length])).toEqual([1, 2, 3, 4].map((g) => [`Edited ${g}`, 300]));
    const { res } = await download(`client/${edited.id}.pdf`);
    expect(res.status).toBe(200);
  }, 180_000);

  it('draws text in other scripts and survives hostile bodies (a 4,000-character word, control characters)', async () => {
    const hostile = await createClient({ name: 'Ωmega Клиент', phone: '+447700900777' });
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
       VALUES ('chat', 'inbound', $2, NULL, $1, '447700900777', '{}', '{}', now(), now()),
              ('chat', 'inbound', $3, NULL, $1, '447700900777', '{}', '{}', now(), now()),
              ('chat', 'inbound', '', NULL, $1, '447700900777', '{"kind":"sticker"}', '{}', now(), now())`,
      [hostile.id, 'Здравствуйте, документы готовы ✓ 👍', `${'A'.repeat(4000)}\u0007\u001b[31m\r\nend`],
    );
    const { res, bytes } = await download(`client/${hostile.id}.pdf`);
    expect(res.status).toBe(200);
    const { text, pages } = await readPdfText(bytes);
    expect(text).toContain('Ωmega Клиент');
    expect(text).toContain('Здравствуйте, документы готовы ✓ [U+1F44D]');
    // Broken across lines and a page (whose footer pdf.js reads first), but every letter is there.
    expect((text.replace(/[\s\u200b]+/g, '').match(/A{20,}/g) ?? []).join('')).toBe('A'.repeat(4000));
    expect(text).toContain('(sticker, no text)');
    expect(pages).toBeGreaterThanOrEqual(2);
  });
});

describe('who may export, and the record of it', () => {
  it('each export is in the audit trail with its format, size and the same SHA-256', async () => {
    const { res, bytes } = await download(`client/${clientId}.pdf`);
    const events = await live.director.audit.list.query({ action: 'export.create' });
    const event = events.items[0]!;
    expect(event).toMatchObject({ user: { id: staffId, name: 'Sam Staff' }, action: 'export.create', subject: `client:${clientId}` });
    expect(event.detail).toMatchObject({ format: 'pdf', sha256: res.headers.get('x-content-sha256'), bytes: bytes.length, messages: 3 });
    expect(event.detail.sha256).toBe(sha256(bytes));
    expect(event.ip).toBeTruthy();
  });

  it('answers 401 signed out, 404 for a subject or path that does not exist, 403 to a cross-site request; none is recorded', async () => {
    const before = (await live.director.audit.list.query({ action: 'export.create' })).items.length;
    expect((await download(`client/${clientId}.pdf`, null)).res.status).toBe(401);
    expect((await download(`client/${clientId}.pdf`, 'firm_chat_session=forged')).res.status).toBe(401);
    for (const path of [
      'client/999999.pdf',
      'case/999999.json',
      `client/${clientId}.html`,
      `clients/${clientId}.pdf`,
      'client/0.pdf',
      'client/-1.pdf',
      'client/1e3.pdf',
      'client/99999999999.pdf',
      `client/${clientId}`,
    ]) {
      const { res, bytes } = await download(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect((JSON.parse(bytes.toString()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
    const head = await fetch(exportUrl(`client/${clientId}.pdf`), { method: 'HEAD', headers: { cookie: live.staffCookie } });
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'GET']);
    const crossSite = await fetch(exportUrl(`client/${clientId}.pdf`), {
      headers: { cookie: live.staffCookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    expect((await live.director.audit.list.query({ action: 'export.create' })).items.length).toBe(before);
  });

  it('with ?ticket= sets a cookie of that name holding the hash and size, on the export only; without one, no cookie', async () => {
    const ticket = 'dl_7Hq2-Xk9pLm3Nb4v';
    const { res, bytes } = await download(`client/${clientId}.json?ticket=${ticket}`);
    expect(res.status).toBe(200);
    // The site is https (live setup): Secure. Not HttpOnly: the page reads it.
    expect(res.headers.getSetCookie()).toEqual([
      `firm_chat_export_${ticket}=${sha256(bytes)}.${bytes.length}; Path=/; Max-Age=600; SameSite=Strict; Secure`,
    ]);
    for (const format of ['json', 'pdf', 'zip']) {
      const plain = await download(`client/${clientId}.${format}`);
      expect([format, plain.res.status, plain.res.headers.getSetCookie()]).toEqual([format, 200, []]);
    }
  });

  it('refuses a malformed ticket with 400 and records nothing; sets no cookie on any refusal', async () => {
    const before = (await live.director.audit.list.query({ action: 'export.create' })).items.length;
    for (const query of [
      'ticket=',
      'ticket=short',
      `ticket=${'x'.repeat(65)}`,
      'ticket=has%20a%20space%20in%20it',
      'ticket=semi;colon-0123456789',
      'ticket=abcdefghijklmnop&ticket=qrstuvwxyz012345',
    ]) {
      const { res, bytes } = await download(`client/${clientId}.json?${query}`);
      expect([query, res.status, res.headers.getSetCookie()]).toEqual([query, 400, []]);
      expect((JSON.parse(bytes.toString()) as { error: { message: string } }).error.message).toContain('16 to 64 letters, digits');
    }
    const ticket = 'abcdefghijklmnop';
    const missing = await download(`client/999999.json?ticket=${ticket}`);
    expect([missing.res.status, missing.res.headers.getSetCookie()]).toEqual([404, []]);
    const signedOut = await download(`client/${clientId}.json?ticket=${ticket}`, null);
    expect([signedOut.res.status, signedOut.res.headers.getSetCookie()]).toEqual([401, []]);
    expect((await live.director.audit.list.query({ action: 'export.create' })).items.length).toBe(before);
  });

  it('a failure before anything is written (no temporary directory) answers 500 and gives its slot back', async () => {
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = '/nonexistent/firm-chat-test'; // os.tmpdir() reads it at each call
    try {
      for (let i = 0; i < MAX_EXPORTS_AT_ONCE + 1; i++) expect((await download(`client/${clientId}.json`)).res.status).toBe(500);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
    expect((await download(`client/${clientId}.json`)).res.status).toBe(200);
  });
});
