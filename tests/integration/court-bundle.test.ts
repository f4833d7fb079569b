import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fromBufferPromise } from 'yauzl';
import { z } from 'zod';
import { denialsSettled } from '../../server/access/record-denial';
import { User } from '../../server/core/db/models/index';
import { createCase } from '../../server/crm/cases';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { readPdfText } from '../support/pdf-text';
import { sql } from '../support/sql';

// The court bundle (server/export/README.md "Evidence exports"): GET /api/export/client/:id.zip and /case/:id.zip, a
// ZIP of the transcript, the JSON export, every stored file as a numbered exhibit and a manifest of
// SHA-256s, hashed in a header and in the audit trail only once the reader has it.

const CLIENT = '447700900123';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** 300 characters with '..' and ':' (the webhook keeps 255 of a name; one stored before that rule is this long). */
const LONG_NAME = `..a:b${'x'.repeat(291)}.pdf`;

const ZManifest = z.strictObject({
  subject: z.looseObject({ type: z.string(), id: z.number(), name: z.string() }),
  exportedAt: z.string(),
  exportedBy: z.looseObject({ id: z.number(), name: z.string() }),
  auditHead: z.object({ id: z.number().nullable(), hash: z.string() }),
  // The key that signed manifest.sig (server/export/README.md "Signed exports").
  signingKey: z.strictObject({ algorithm: z.literal('Ed25519'), fingerprint: z.string().regex(/^[0-9a-f]{64}$/) }),
  files: z.array(z.strictObject({ path: z.string(), sha256: z.string(), bytes: z.number() })),
  missing: z.array(z.strictObject({ exhibit: z.number(), name: z.string(), reason: z.string() })),
});
const ZMessages = z.looseObject({
  exportedAt: z.string(),
  count: z.number(),
  messages: z.array(
    z.looseObject({
      body: z.string(),
      attachments: z.array(z.looseObject({ id: z.number(), exhibit: z.number(), fileName: z.string().nullable(), state: z.string() })),
    }),
  ),
});

/** Every entry of a ZIP, in order, read back with yauzl (a test's bundles are small). */
async function readZip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await fromBufferPromise(bytes, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true });
  const entries = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    expect(entries.has(entry.fileName), `${entry.fileName} twice`).toBe(false);
    entries.set(entry.fileName, Buffer.concat(chunks));
  }
  return entries;
}

let live: TLiveSetup;
let clientId: number;
let caseId: number;
let staffId: number;
let photo: Buffer;
const documents = {
  contract: Buffer.from('%PDF-1.4 the signed tenancy agreement'),
  firstStatement: Buffer.from('statement one: rent paid in full'),
  secondStatement: Buffer.from('statement two: deposit not returned'),
  con: Buffer.from('a file a phone named CON'),
  long: Buffer.from('a file with a very long name'),
  gone: Buffer.from('bytes that retention deleted'),
  failed: Buffer.from('bytes that never arrived'),
};

beforeAll(async () => {
  live = await startLiveSetup({ FIRM_NAME: 'Hart & Co Solicitors' }, { mediaQueue: { pollMs: 50 } });
  staffId = (await User.findOne({ where: { email: 'sam@firm.test' } }))!.id;
  clientId = (await createClient({ name: 'Amelia Hart', phone: `+${CLIENT}` })).id;
  caseId = (await createCase({ clientId, reference: 'HART-001', title: 'Deposit dispute' })).id;
  photo = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#c03030' } })
    .png()
    .toBuffer();

  await live.sim.sendInbound(CLIENT, 'Did the letting agent reply?', 'Amelia');
  const asked = await live.staff.chat.send.mutate({ clientId, body: 'Not yet. Can you send the check-out report?' });
  await live.sim.sendInboundKind({ kind: 'reply', from: CLIENT, body: 'Here it is', contextId: asked.metadata.chat_msg_id! });
  const shown = await live.sim.sendInboundKind({
    kind: 'image',
    from: CLIENT,
    bytesBase64: photo.toString('base64'),
    mimeType: 'image/png',
    caption: 'The check-out report',
  });
  const document = (fileName: string, bytes: Buffer) =>
    live.sim.sendInboundKind({
      kind: 'document',
      from: CLIENT,
      bytesBase64: bytes.toString('base64'),
      mimeType: 'application/pdf',
      fileName,
    });
  await document('contract.pdf', documents.contract);
  await document('statement.pdf', documents.firstStatement);
  await document('statement.pdf', documents.secondStatement);
  await document('CON', documents.con);
  await document('long.pdf', documents.long);
  await document('gone.pdf', documents.gone);
  await document('failed.pdf', documents.failed);
  await vi.waitFor(
    async () => expect((await sql(live.server.databaseUrl, `SELECT id FROM attachments WHERE state = 'stored'`)).length).toBe(8),
    { timeout: 15_000, interval: 50 },
  );
  await sql(live.server.databaseUrl, `UPDATE attachments SET file_name = $1 WHERE file_name = 'long.pdf'`, [LONG_NAME]);
  // Bytes gone after they were stored (retention deletes them), and a download that failed.
  await sql(
    live.server.databaseUrl,
    `DELETE FROM attachment_chunks WHERE attachment_id = (SELECT id FROM attachments WHERE file_name = 'gone.pdf')`,
  );
  await sql(
    live.server.databaseUrl,
    `UPDATE attachments SET state = 'failed', error = 'The provider no longer has this file.' WHERE file_name = 'failed.pdf';
     DELETE FROM attachment_chunks WHERE attachment_id = (SELECT id FROM attachments WHERE file_name = 'failed.pdf')`,
  );
  // A photo still waiting for its download (due in an hour: the queue leaves it be meanwhile).
  await sql(
    live.server.databaseUrl,
    `WITH m AS (INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
                VALUES ('chat', 'inbound', '', NULL, $1, $2, '{"kind": "image"}', '{}', now(), now()) RETURNING id)
     INSERT INTO attachments (communication_id, kind, mime_type, file_name, state, next_attempt_at)
     SELECT id, 'image', 'image/jpeg', 'waiting.jpg', 'pending', now() + interval '1 hour' FROM m`,
    [clientId, CLIENT],
  );
  // The photo is filed on the case; nothing else is.
  await sql(live.server.databaseUrl, `UPDATE communications SET case_id = $1 WHERE metadata->>'chat_msg_id' = $2`, [caseId, shown.id]);
}, 60_000);
afterAll(() => live?.stop());

const exportUrl = (path: string) => `${live.server.url}/api/export/${path}`;
async function download(path: string, cookie: string | null = live.staffCookie) {
  const res = await fetch(exportUrl(path), { headers: cookie ? { cookie } : {} });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

const exportEvents = (subject: string) =>
  sql<{ id: string; detail: Record<string, unknown> }>(
    live.server.databaseUrl,
    `SELECT id::text, detail FROM audit_events WHERE action = 'export.create' AND subject = $1 ORDER BY audit_events.id`,
    [subject],
  );

/** This process's export spool directories (the test server runs in it): none left once an export is over. */
const exportSpools = async () =>
  (await readdir(os.tmpdir())).filter((name) => name.startsWith('firm-chat-export-') && name.includes(`-p${process.pid}-`));

describe('the court bundle of a client', () => {
  it('holds the transcript, the JSON export, every stored file as a numbered exhibit and a manifest that hashes each', async () => {
    const before = (await exportEvents(`client:${clientId}`)).length;
    const { res, bytes } = await download(`client/${clientId}.zip`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="Chat bundle - Amelia Hart - \d{4}-\d\d-\d\d\.zip"$/);
    expect(res.headers.get('x-content-sha256')).toBe(sha256(bytes));

    const entries = await readZip(bytes);
    const paths = [...entries.keys()];
    expect(paths.slice(0, 2)).toEqual(['transcript.pdf', 'messages.json']);
    expect(paths.slice(-2)).toEqual(['manifest.json', 'manifest.sig']);
    const manifest = ZManifest.parse(JSON.parse(entries.get('manifest.json')!.toString('utf8')));
    // Every file of the ZIP but the manifest and its signature is listed with the SHA-256 and size of its bytes, and nothing else is.
    expect(manifest.files.map((file) => file.path)).toEqual(paths.slice(0, -2));
    for (const file of manifest.files)
      expect([file.path, sha256(entries.get(file.path)!), entries.get(file.path)!.length]).toEqual([file.path, file.sha256, file.bytes]);

    // messages.json is the JSON export of the same snapshot; the transcript its PDF.
    const json = ZMessages.parse(JSON.parse(entries.get('messages.json')!.toString('utf8')));
    expect(json).toMatchObject({ exportedAt: manifest.exportedAt, count: 12 });
    expect(manifest).toMatchObject({
      subject: { type: 'client', id: clientId, name: 'Amelia Hart' },
      exportedBy: { id: staffId, name: 'Sam Staff' },
    });
    expect(entries.get('transcript.pdf')!.subarray(0, 5).toString()).toBe('%PDF-');
    const transcript = (await readPdfText(entries.get('transcript.pdf')!)).text.replace(/\s+/g, ' ');
    expect(transcript).toContain('Not yet. Can you send the check-out report?');
    // Each file the firm does not hold says why, in the same words as the manifest.
    expect(transcript).toContain(
      "Exhibit 8: failed.pdf · application/pdf · file not held by the firm: the provider's copy could not be downloaded",
    );
    expect(transcript).toContain(
      'Exhibit 7: gone.pdf · application/pdf · file not held by the firm: destroyed since it was received (for example under the retention policy)',
    );
    expect(transcript).toContain(
      'Exhibit 9: waiting.jpg · image/jpeg · file not held by the firm: not yet downloaded from the provider when this record was made',
    );

    // Each exhibit is the stored attachment's bytes: its SHA-256 is the one recorded when it was stored.
    const attachments = json.messages.flatMap((message) => message.attachments);
    expect(attachments.map((file) => file.exhibit)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const stored = new Map(
      (await sql<{ id: number; sha256: string }>(live.server.databaseUrl, 'SELECT id, sha256 FROM attachments')).map((row) => [
        row.id,
        row.sha256,
      ]),
    );
    const exhibits = manifest.files.filter((file) => file.path.startsWith('exhibits/'));
    for (const file of exhibits) {
      const exhibit = Number(/^exhibits\/(\d{3})-/.exec(file.path)![1]);
      expect(file.sha256).toBe(stored.get(attachments.find((a) => a.exhibit === exhibit)!.id));
    }
    expect(exhibits.map((file) => file.path)).toEqual([
      'exhibits/001-file.png',
      'exhibits/002-contract.pdf',
      'exhibits/003-statement.pdf',
      'exhibits/004-statement.pdf',
      'exhibits/005-_CON',
      expect.stringMatching(/^exhibits\/006-a_bx+\.pdf$/),
    ]);
    expect(Buffer.byteLength(exhibits[5]!.path.slice('exhibits/006-'.length))).toBeLessThanOrEqual(150);
    expect(entries.get('exhibits/001-file.png')).toEqual(photo);
    expect(entries.get('exhibits/003-statement.pdf')).toEqual(documents.firstStatement);
    expect(entries.get('exhibits/004-statement.pdf')).toEqual(documents.secondStatement);

    // The files whose bytes are gone are named, with why; the bundle is made all the same.
    expect(manifest.missing).toEqual([
      { exhibit: 7, name: 'gone.pdf', reason: 'destroyed since it was received (for example under the retention policy)' },
      { exhibit: 8, name: 'failed.pdf', reason: "the provider's copy could not be downloaded" },
      { exhibit: 9, name: 'waiting.jpg', reason: 'not yet downloaded from the provider when the bundle was made' },
    ]);

    // The audit trail has the ZIP's hash, and each part's, so a part taken out is known too.
    const events = await exportEvents(`client:${clientId}`);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)!.detail).toEqual({
      format: 'zip',
      sha256: sha256(bytes),
      bytes: bytes.length,
      messages: 12,
      fileName: expect.stringMatching(/^Chat bundle - Amelia Hart - .*\.zip$/) as unknown,
      exhibits: 9,
      missingExhibits: 3,
      manifestSha256: sha256(entries.get('manifest.json')!),
      transcriptSha256: sha256(entries.get('transcript.pdf')!),
      jsonSha256: sha256(entries.get('messages.json')!),
      // Signed by the firm's key: the ZIP's digest, and each part's (server/export/README.md "Signed exports").
      signature: expect.stringMatching(/^[A-Za-z0-9+/]{86}==$/) as unknown,
      signingKey: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      partSignatures: {
        'transcript.pdf': expect.any(String) as unknown,
        'messages.json': expect.any(String) as unknown,
        'manifest.json': expect.any(String) as unknown,
      },
    });
    expect(await exportSpools()).toEqual([]);
  });

  it('of a case holds only the files filed on the case', async () => {
    const { res, bytes } = await download(`case/${caseId}.zip`);
    expect(res.status).toBe(200);
    const entries = await readZip(bytes);
    expect([...entries.keys()]).toEqual(['transcript.pdf', 'messages.json', 'exhibits/001-file.png', 'manifest.json', 'manifest.sig']);
    expect(ZManifest.parse(JSON.parse(entries.get('manifest.json')!.toString())).subject).toMatchObject({ type: 'case', id: caseId });
  });

  it('of a conversation with no messages is a valid ZIP with a transcript, an empty JSON export and a manifest', async () => {
    const quiet = await createClient({ name: 'Quiet Client', phone: '+447700900999' });
    const { res, bytes } = await download(`client/${quiet.id}.zip`);
    expect(res.status).toBe(200);
    const entries = await readZip(bytes);
    expect([...entries.keys()]).toEqual(['transcript.pdf', 'messages.json', 'manifest.json', 'manifest.sig']);
    expect(ZMessages.parse(JSON.parse(entries.get('messages.json')!.toString()))).toMatchObject({ count: 0, messages: [] });
    const manifest = ZManifest.parse(JSON.parse(entries.get('manifest.json')!.toString()));
    expect(manifest.files.map((file) => file.path)).toEqual(['transcript.pdf', 'messages.json']);
    expect(manifest.missing).toEqual([]);
  });

  it('is answered 404 to a person walled from the client, as if it did not exist, and recorded as nothing but the attempt', async () => {
    const walled = await createClient({ name: 'Walled Client', phone: '+447700900888' });
    await live.director.access.screen.mutate({ clientId: walled.id, userId: staffId, reason: 'Acted for the landlord' });
    const { res, bytes } = await download(`client/${walled.id}.zip`);
    const missing = await download('client/999999.zip');
    expect([res.status, bytes.toString()]).toEqual([404, missing.bytes.toString()]);
    expect(await exportEvents(`client:${walled.id}`)).toEqual([]);
    await denialsSettled(); // written off the request's path (server/access/README.md "What the trail records")
    expect(
      (
        await sql(live.server.databaseUrl, `SELECT 1 FROM audit_events WHERE action = 'access.denied' AND subject = $1`, [
          `client:${walled.id}`,
        ])
      ).length,
    ).toBe(1);
  });

  it('is refused signed out and cross-site, and HEAD is not answered with a bundle', async () => {
    expect((await download(`client/${clientId}.zip`, null)).res.status).toBe(401);
    const crossSite = await fetch(exportUrl(`client/${clientId}.zip`), {
      headers: { cookie: live.staffCookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    const head = await fetch(exportUrl(`client/${clientId}.zip`), { method: 'HEAD', headers: { cookie: live.staffCookie } });
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'GET']);
  });
});

describe('a reader who goes away', () => {
  let big: number;
  beforeAll(async () => {
    // 32 MB of file in one stored attachment, written in SQL: far more than a connection's buffers hold.
    big = (await createClient({ name: 'Big Files', phone: '+447700900321' })).id;
    await sql(
      live.server.databaseUrl,
      `WITH m AS (INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
                  VALUES ('chat', 'inbound', 'the survey', NULL, $1, '447700900321', '{"kind": "document"}', '{}', now(), now()) RETURNING id),
            a AS (INSERT INTO attachments (communication_id, kind, mime_type, file_name, state) SELECT id, 'document', 'application/pdf', 'survey.pdf', 'stored' FROM m RETURNING id)
       INSERT INTO attachment_chunks (attachment_id, seq, data)
       SELECT a.id, g, convert_to(repeat(lpad(g::text, 8, '0'), 32768), 'UTF8') FROM a, generate_series(0, 127) g`,
      [big],
    );
    await sql(
      live.server.databaseUrl,
      `UPDATE attachments a SET size = s.size, sha256 = s.sha256
       FROM (SELECT attachment_id, sum(octet_length(data))::bigint AS size, encode(sha256(string_agg(data, ''::bytea ORDER BY seq)), 'hex') AS sha256
             FROM attachment_chunks GROUP BY attachment_id) s
       WHERE s.attachment_id = a.id AND a.file_name = 'survey.pdf'`,
    );
  }, 60_000);

  it('mid-download leaves no export.create and no temporary file', async () => {
    const gone = new AbortController();
    const res = await fetch(exportUrl(`client/${big}.zip`), { headers: { cookie: live.staffCookie }, signal: gone.signal });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(32 * 1024 * 1024);
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false); // the download has begun
    gone.abort();
    await vi.waitFor(async () => expect(await exportSpools()).toEqual([]), { timeout: 10_000, interval: 50 });
    expect(await exportEvents(`client:${big}`)).toEqual([]);
    // The slot it held is free, and a reader who stays gets the bundle, recorded once.
    const whole = await download(`client/${big}.zip`);
    expect(whole.res.status).toBe(200);
    expect((await exportEvents(`client:${big}`)).map((event) => event.detail.sha256)).toEqual([sha256(whole.bytes)]);
  }, 60_000);

  it('while the bundle is prepared leaves no export.create and no temporary file', async () => {
    const before = await exportEvents(`client:${big}`);
    // The file's bytes are held back (a lock on their table) until the reader has gone.
    const lock = new pg.Client({ connectionString: live.server.databaseUrl });
    await lock.connect();
    try {
      await lock.query('BEGIN; LOCK TABLE attachment_chunks IN ACCESS EXCLUSIVE MODE');
      const gone = new AbortController();
      const request = fetch(exportUrl(`client/${big}.zip`), { headers: { cookie: live.staffCookie }, signal: gone.signal });
      request.catch(() => undefined);
      await vi.waitFor(
        async () =>
          expect(
            (await lock.query(`SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'attachment_chunks'::regclass`)).rowCount,
          ).toBeGreaterThan(0),
        { timeout: 10_000, interval: 20 },
      );
      expect(await exportSpools()).not.toEqual([]);
      gone.abort();
      await expect(request).rejects.toThrow();
    } finally {
      await lock.query('ROLLBACK');
      await lock.end();
    }
    await vi.waitFor(async () => expect(await exportSpools()).toEqual([]), { timeout: 10_000, interval: 50 });
    expect(await exportEvents(`client:${big}`)).toEqual(before);
  }, 60_000);
});

describe('the plain exports', () => {
  it('are recorded once the reader has them, as the bundle is', async () => {
    for (const format of ['pdf', 'json']) {
      const { res, bytes } = await download(`client/${clientId}.${format}`);
      expect(res.status).toBe(200);
      const event = (await exportEvents(`client:${clientId}`)).at(-1)!;
      expect(event.detail).toMatchObject({ format, sha256: sha256(bytes), bytes: bytes.length, messages: 12 });
    }
  });
});

describe('old records', () => {
  it('names with a line break, of only spaces or with variation selectors, and a file missing a stored chunk, come out plain', async () => {
    const old = await createClient({ name: 'Old Records', phone: '+447700900765' });
    const file = (n: number) => Buffer.from(`the bytes of file ${n}, `.repeat(50));
    const holed = Buffer.alloc(3000, 7);
    // Stored before names were checked: written in SQL, each file one chunk (the holed one three, its middle one since lost).
    const rows = await sql<{ id: number; name: string }>(
      live.server.databaseUrl,
      `WITH m AS (INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
                  SELECT 'chat', 'inbound', 'file ' || n, NULL, $1, '447700900765', '{"kind": "document"}', '{}', now() + n * interval '1 second', now()
                  FROM generate_series(1, 4) n RETURNING id, body)
       INSERT INTO attachments (communication_id, kind, mime_type, file_name, state, size, sha256)
       SELECT m.id, 'document', 'application/pdf', f.name, 'stored', f.size, f.sha256
       FROM m JOIN unnest($2::text[], $3::int[], $4::text[]) WITH ORDINALITY AS f(name, size, sha256, n) ON m.body = 'file ' || f.n
       RETURNING id, file_name AS name`,
      [
        old.id,
        ['Invoice\nPAID IN FULL.pdf', '   ', 'vs\uFE0F.pdf', 'holed.pdf'],
        [file(1).length, file(2).length, file(3).length, holed.length],
        [sha256(file(1)), sha256(file(2)), sha256(file(3)), sha256(holed)],
      ],
    );
    for (const [i, row] of rows.entries()) {
      const pieces = row.name === 'holed.pdf' ? [holed.subarray(0, 1000), null, holed.subarray(2000)] : [file(i + 1)];
      for (const [seq, data] of pieces.entries())
        if (data)
          await sql(live.server.databaseUrl, 'INSERT INTO attachment_chunks (attachment_id, seq, data) VALUES ($1, $2, $3)', [
            row.id,
            seq,
            data,
          ]);
    }
    const { res, bytes } = await download(`client/${old.id}.zip`);
    expect(res.status).toBe(200);
    const entries = await readZip(bytes);
    expect([...entries.keys()].filter((name) => name.startsWith('exhibits/'))).toEqual([
      'exhibits/001-Invoice_PAID IN FULL.pdf',
      'exhibits/002-file.pdf',
      'exhibits/003-vs[U+FE0F].pdf',
      'exhibits/004-holed.pdf',
    ]);
    // The bytes before the gap, never the chunks either side of it put together; the manifest says why.
    expect(entries.get('exhibits/004-holed.pdf')).toEqual(holed.subarray(0, 1000));
    expect(ZManifest.parse(JSON.parse(entries.get('manifest.json')!.toString('utf8'))).missing).toEqual([
      {
        exhibit: 4,
        name: 'holed.pdf',
        reason:
          'only 1000 of its 3000 bytes could be read when the bundle was made (part of its stored bytes is missing from the database): exhibits/004-holed.pdf is incomplete',
      },
    ]);
    const transcript = (await readPdfText(entries.get('transcript.pdf')!)).text.replace(/\s+/g, ' ');
    expect(transcript).toContain('Exhibit 1: Invoice[U+000A]PAID IN FULL.pdf · bundle file exhibits/001-Invoice_PAID IN FULL.pdf');
    expect(transcript).toContain('Exhibit 2: (no name) · bundle file exhibits/002-file.pdf');
    expect(transcript).toContain('Exhibit 3: vs[U+FE0F].pdf · bundle file exhibits/003-vs[U+FE0F].pdf');
  });
});
