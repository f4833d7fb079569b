import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ZipFile } from 'yazl';
import { z } from 'zod';
import { createUser } from '../../server/auth/users';
import { createClient } from '../../server/crm/clients';
import { checkExportFile, NOT_IN_ZIP, YIELD_EVERY } from '../../server/export/verify-export';
import { runScript } from '../support/app-process';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';
import { readZip, zipOf } from '../support/zip-entries';

// Verify a copy (server/export/README.md "Evidence exports"): POST /api/export/verify and npm run export:verify say
// which export a file is, by whom and when, and for a court bundle whether every file still matches
// its manifest. Altered bundles are rebuilt here with yazl, as someone editing a copy would.

const CLIENT = '447700900123';
/** Short limits, so a slow link and a stalled one are seen within a test: a request must arrive in 2 s, an upload may idle 1 s. */
const REQUEST_MS = 2_000;
const IDLE_MS = 1_000;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const ZFile = z.strictObject({
  path: z.string(),
  sha256: z.string(),
  bytes: z.number(),
  found: z.boolean(),
  matches: z.boolean(),
  actualSha256: z.string().nullable(),
  problem: z.string().nullable(),
});
const ZVerifyResult = z.strictObject({
  fileName: z.string().nullable(),
  kind: z.enum(['zip', 'pdf', 'json', 'unknown']),
  sha256: z.string(),
  bytes: z.number(),
  export: z
    .strictObject({
      auditEventId: z.number(),
      at: z.string(),
      by: z.object({ id: z.number().nullable(), name: z.string() }),
      subject: z.object({ type: z.enum(['client', 'case']), id: z.number(), name: z.string() }),
      format: z.enum(['pdf', 'json', 'zip']),
      part: z.enum(['transcript.pdf', 'messages.json', 'manifest.json']).nullable(),
    })
    .nullable(),
  manifest: z
    .strictObject({
      subject: z.unknown(),
      exportedAt: z.string(),
      exportedBy: z.unknown(),
      auditHead: z.unknown(),
      files: z.array(ZFile),
      missing: z.array(z.strictObject({ exhibit: z.number(), name: z.string(), reason: z.string(), problem: z.string().nullable() })),
      extra: z.array(z.string()),
      allMatch: z.boolean(),
    })
    .nullable(),
  storedFile: z
    .strictObject({
      attachmentId: z.number(),
      fileName: z.string().nullable(),
      mimeType: z.string(),
      bytes: z.number(),
      direction: z.enum(['inbound', 'outbound']).nullable(),
      at: z.string(),
      subject: z.strictObject({ type: z.literal('client'), id: z.number(), name: z.string() }),
      caseId: z.number().nullable(),
      others: z.number(),
    })
    .nullable(),
  verdict: z.enum(['genuine', 'altered', 'unknown']),
  summary: z.string(),
});

/**
 * A zip bomb without recursion (overlapping entries): the central directory names the one entry a
 * thousand times over, so reading "every file" would inflate the same megabyte a thousand times.
 */
async function overlappingZip(): Promise<Buffer> {
  const single = await zipOf([['a', Buffer.alloc(1024 * 1024)]]);
  const eocd = single.length - 22;
  const cdSize = single.readUInt32LE(eocd + 12);
  const cdOffset = single.readUInt32LE(eocd + 16);
  const record = single.subarray(cdOffset, cdOffset + cdSize);
  const copies = 1000;
  const tail = Buffer.from(single.subarray(eocd));
  tail.writeUInt16LE(copies, 8);
  tail.writeUInt16LE(copies, 10);
  tail.writeUInt32LE(cdSize * copies, 12);
  const names = Array.from({ length: copies }, (_, i) => {
    const copy = Buffer.from(record);
    copy.write(String.fromCharCode(97 + (i % 26)), 46); // one-letter names: the record's length is unchanged
    return copy;
  });
  return Buffer.concat([single.subarray(0, cdOffset), ...names, tail]);
}

let live: TLiveSetup;
let clientId: number;
let directorCookie: string;
let walledDirectorCookie: string;
let bundle: Buffer;
let bundleEntries: [string, Buffer][];
let work: string;

async function cookieOf(email: string, password: string): Promise<string> {
  const { client, jar } = createHttpClient(live.server.url);
  await client.auth.signIn.mutate({ email, password });
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

async function download(pathname: string): Promise<Buffer> {
  const res = await fetch(`${live.server.url}/api/export/${pathname}`, { headers: { cookie: live.staffCookie } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function verify(body: Buffer, options: { cookie?: string | null; fileName?: string; headers?: Record<string, string> } = {}) {
  const cookie = options.cookie === undefined ? directorCookie : options.cookie;
  const res = await fetch(`${live.server.url}/api/export/verify`, {
    method: 'POST',
    headers: {
      'content-type': 'application/octet-stream',
      ...(cookie ? { cookie } : {}),
      ...(options.fileName ? { 'x-file-name': encodeURIComponent(options.fileName) } : {}),
      ...options.headers,
    },
    body: new Uint8Array(body),
  });
  const json: unknown = await res.json();
  return { status: res.status, json, result: res.status === 200 ? ZVerifyResult.parse(json) : null };
}

const exportEvent = async (sha: string) =>
  (
    await sql<{ id: string }>(
      live.server.databaseUrl,
      `SELECT id::text FROM audit_events WHERE action = 'export.create' AND detail->>'sha256' = $1`,
      [sha],
    )
  )[0];

beforeAll(async () => {
  live = await startLiveSetup(
    { FIRM_NAME: 'Hart & Co Solicitors' },
    { mediaQueue: { pollMs: 50 }, timeouts: { requestMs: REQUEST_MS, uploadIdleMs: IDLE_MS } },
  );
  clientId = (await createClient({ name: 'Amelia Hart', phone: `+${CLIENT}` })).id;
  await createUser({ email: 'wes@firm.test', name: 'Wes Walled', role: 'director', password: 'director-password' });
  directorCookie = await cookieOf('dee@firm.test', 'director-password');
  walledDirectorCookie = await cookieOf('wes@firm.test', 'director-password');
  await live.sim.sendInbound(CLIENT, 'Here are the papers', 'Amelia');
  const photo = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#3060c0' } })
    .jpeg()
    .toBuffer();
  await live.sim.sendInboundKind({ kind: 'image', from: CLIENT, bytesBase64: photo.toString('base64'), mimeType: 'image/jpeg' });
  await live.sim.sendInboundKind({
    kind: 'document',
    from: CLIENT,
    bytesBase64: Buffer.from('%PDF-1.4 the inventory').toString('base64'),
    mimeType: 'application/pdf',
    fileName: 'inventory.pdf',
  });
  await vi.waitFor(
    async () => expect((await sql(live.server.databaseUrl, `SELECT id FROM attachments WHERE state = 'stored'`)).length).toBe(2),
    { timeout: 15_000, interval: 50 },
  );
  bundle = await download(`client/${clientId}.zip`);
  bundleEntries = await readZip(bundle);
  work = await mkdtemp(path.join(os.tmpdir(), 'export-verify-test-'));
}, 60_000);
afterAll(async () => {
  await live?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

const entry = (name: string) => bundleEntries.find(([path]) => path === name)![1];

/** What the check says of a file that is no export and no file the firm holds (or may be shown). */
const NO_RECORD = 'Firm Chat has no record of this file: it is no export in the audit trail and no file the firm holds.';

const lastVerification = async () =>
  (
    await sql<{ subject: string; detail: Record<string, unknown> }>(
      live.server.databaseUrl,
      `SELECT subject, detail FROM audit_events WHERE action = 'export.verify' ORDER BY audit_events.id DESC LIMIT 1`,
    )
  )[0]!;

/**
 * The bundle with some entries' bytes replaced and its manifest edited to match, as a forger who
 * read the README would do; `recorded` also rewrites what messages.json recorded for them.
 */
async function forgedBundle(changes: Record<string, Buffer>, options: { recorded?: boolean } = {}): Promise<Buffer> {
  const manifest = JSON.parse(entry('manifest.json').toString('utf8')) as { files: { path: string; sha256: string; bytes: number }[] };
  let messages = entry('messages.json').toString('utf8');
  if (options.recorded) for (const path of Object.keys(changes)) messages = messages.replace(sha256(entry(path)), sha256(changes[path]!));
  const parts: Record<string, Buffer> = { ...changes, 'messages.json': Buffer.from(messages) };
  for (const file of manifest.files)
    if (parts[file.path]) Object.assign(file, { sha256: sha256(parts[file.path]!), bytes: parts[file.path]!.length });
  return zipOf(
    bundleEntries.map(([name, bytes]): [string, Buffer] => [
      name,
      name === 'manifest.json' ? Buffer.from(JSON.stringify(manifest, null, 2)) : (parts[name] ?? bytes),
    ]),
  );
}

describe('POST /api/export/verify', () => {
  it('says a fresh bundle is genuine: which export, by whom, when, and every file matching its manifest; the check is audited', async () => {
    const { status, result } = await verify(bundle, { fileName: 'Chat bundle – Amelia Hart.zip' });
    expect(status).toBe(200);
    const event = await exportEvent(sha256(bundle));
    expect(result).toMatchObject({
      fileName: 'Chat bundle – Amelia Hart.zip',
      kind: 'zip',
      sha256: sha256(bundle),
      bytes: bundle.length,
      verdict: 'genuine',
      export: {
        auditEventId: Number(event!.id),
        by: { name: 'Sam Staff' },
        subject: { type: 'client', id: clientId, name: 'Amelia Hart' },
        format: 'zip',
        part: null,
      },
      manifest: { extra: [], missing: [], allMatch: true },
    });
    expect(result!.manifest!.files.map((file) => [file.path, file.found, file.matches, file.actualSha256, file.problem])).toEqual(
      // manifest.sig is the manifest's signature, checked with it, never listed in it (server/export/README.md "Signed exports").
      bundleEntries
        .filter(([name]) => name !== 'manifest.json' && name !== 'manifest.sig')
        .map(([name, bytes]) => [name, true, true, sha256(bytes), null]),
    );
    expect(result!.manifest!.files.map((file) => file.path)).toEqual([
      'transcript.pdf',
      'messages.json',
      'exhibits/001-file.jpg',
      'exhibits/002-inventory.pdf',
    ]);
    expect(result!.storedFile).toBeNull();
    expect(result!.summary).toMatch(
      /^This is the court bundle of Amelia Hart that Sam Staff exported on \d+ \w{3} \d{4} at \d\d:\d\d UTC \(audit event #\d+\); every file matches its manifest\.$/,
    );
    const [audited] = await sql<{ user_id: number; subject: string; detail: unknown }>(
      live.server.databaseUrl,
      `SELECT user_id, subject, detail FROM audit_events WHERE action = 'export.verify' ORDER BY audit_events.id DESC LIMIT 1`,
    );
    expect(audited).toMatchObject({
      subject: `client:${clientId}`,
      detail: { sha256: sha256(bundle), verdict: 'genuine', auditEventId: Number(event!.id) },
    });
    // And the Audit page lists it (the trail's action list must name it).
    const { items } = await live.director.audit.list.query({ limit: 5 });
    expect(items.find((item) => (item.action as string) === 'export.verify')).toMatchObject({
      user: { name: 'Dee Director' },
      subject: `client:${clientId}`,
    });
  });

  it('says a plain PDF and JSON export are genuine, and knows a transcript, messages or manifest taken out of a bundle', async () => {
    for (const format of ['pdf', 'json'] as const) {
      const copy = await download(`client/${clientId}.${format}`);
      const { result } = await verify(copy);
      expect(result).toMatchObject({
        kind: format,
        verdict: 'genuine',
        manifest: null,
        export: { format, part: null, auditEventId: Number((await exportEvent(sha256(copy)))!.id) },
      });
    }
    const bundleEvent = Number((await exportEvent(sha256(bundle)))!.id);
    for (const [part, kind] of [
      ['transcript.pdf', 'pdf'],
      ['messages.json', 'json'],
      ['manifest.json', 'json'],
    ] as const) {
      const { result } = await verify(entry(part));
      expect(result).toMatchObject({ kind, verdict: 'genuine', export: { auditEventId: bundleEvent, format: 'zip', part } });
      expect(result!.summary).toContain(`(${part}) `);
    }
  });

  it('says a bundle packed again with the same files is genuine, known by its manifest', async () => {
    const { result } = await verify(await zipOf(bundleEntries));
    expect(result).toMatchObject({ verdict: 'genuine', export: { part: null, format: 'zip' }, manifest: { allMatch: true } });
    expect(result!.summary).toContain('packed into a new ZIP since');
  });

  it('says a bundle is altered when an exhibit changed, a file was added or one was taken out, naming which', async () => {
    const changed = await zipOf(
      bundleEntries.map(([name, bytes]): [string, Buffer] => [
        name,
        name === 'exhibits/002-inventory.pdf' ? Buffer.from('%PDF-1.4 the inventorY') : bytes,
      ]),
    );
    const one = await verify(changed);
    expect(one.result).toMatchObject({ verdict: 'altered', export: { format: 'zip' }, manifest: { allMatch: false, extra: [] } });
    expect(one.result!.manifest!.files.find((file) => file.path === 'exhibits/002-inventory.pdf')).toMatchObject({
      found: true,
      matches: false,
      actualSha256: sha256(Buffer.from('%PDF-1.4 the inventorY')),
      // The manifest and messages.json both recorded the original: both differ.
      problem: 'differs from the manifest; differs from what messages.json recorded for exhibit 2',
    });
    expect(one.result!.summary).toContain('1 file differs from the manifest (exhibits/002-inventory.pdf)');

    const added = await verify(await zipOf([...bundleEntries, ['exhibits/003-extra.pdf', Buffer.from('planted')]]));
    expect(added.result).toMatchObject({ verdict: 'altered', manifest: { allMatch: false, extra: ['exhibits/003-extra.pdf'] } });
    expect(added.result!.manifest!.files.every((file) => file.matches)).toBe(true);

    const removed = await verify(await zipOf(bundleEntries.filter(([name]) => name !== 'exhibits/001-file.jpg')));
    expect(removed.result).toMatchObject({ verdict: 'altered', manifest: { allMatch: false } });
    expect(removed.result!.manifest!.files.find((file) => file.path === 'exhibits/001-file.jpg')).toMatchObject({
      found: false,
      matches: false,
      actualSha256: null,
      problem: 'not in the ZIP',
    });

    const verdicts = await sql<{ verdict: string }>(
      live.server.databaseUrl,
      `SELECT detail->>'verdict' AS verdict FROM audit_events WHERE action = 'export.verify' ORDER BY audit_events.id DESC LIMIT 3`,
    );
    expect(verdicts.map((row) => row.verdict)).toEqual(['altered', 'altered', 'altered']);
  });

  it('says unknown for a file it never exported, and for ZIPs it cannot check (no manifest, a path out of the folder, a zip bomb), without failing', async () => {
    const random = await verify(randomBytes(4096));
    expect(random.result).toMatchObject({ kind: 'unknown', verdict: 'unknown', export: null, manifest: null, storedFile: null });
    expect(random.result!.summary).toBe(NO_RECORD);
    // Nothing the checker may know: a subject the Audit page shows as "—".
    expect((await lastVerification()).subject).toBe('export');

    // JSON, but no export: said so, not called "not a JSON file".
    const hello = await verify(Buffer.from('{"hello":"world"}'));
    expect(hello.result).toMatchObject({ kind: 'unknown', verdict: 'unknown', export: null });
    expect(hello.result!.summary).toBe('This is a JSON file that is not a Firm Chat export, and no file Firm Chat holds has its SHA-256.');

    // A bundle cut short in its download: said plainly, not in the ZIP library's words.
    const truncated = await verify(bundle.subarray(0, Math.floor(bundle.length / 2)));
    expect(truncated.result).toMatchObject({ kind: 'zip', verdict: 'unknown', manifest: null });
    expect(truncated.result!.summary).toBe('This file could not be read as a ZIP: it is damaged or incomplete.');

    const noManifest = await verify(await zipOf([['notes.txt', Buffer.from('hello')]]));
    expect(noManifest.result).toMatchObject({ kind: 'zip', verdict: 'unknown', manifest: null });
    expect(noManifest.result!.summary).toContain('it has no manifest.json');

    const escaping = await zipOf([['exhibits/x', Buffer.from('x')]]);
    // The central directory's copy of the name (the one readers trust), the same length: the archive stays readable.
    escaping.write('../../../x', escaping.lastIndexOf('exhibits/x'));
    const traversal = await verify(escaping);
    expect(traversal.result).toMatchObject({ kind: 'zip', verdict: 'unknown', manifest: null });
    expect(traversal.result!.summary).toBe(
      'This ZIP could not be checked: one of its entries is named with a path that leaves its folder, which no bundle has. It is not a court bundle as Firm Chat made it.',
    );

    const bomb = await verify(await overlappingZip());
    expect(bomb.result).toMatchObject({ kind: 'zip', verdict: 'unknown', manifest: null });
    expect(bomb.result!.summary).toContain('its entries overlap, as in a zip bomb');

    const intactButUnknown = await verify(
      await zipOf([
        [
          'manifest.json',
          Buffer.from(
            JSON.stringify({ subject: {}, exportedAt: '2026-01-01T00:00:00.000Z', exportedBy: {}, auditHead: {}, files: [], missing: [] }),
          ),
        ],
      ]),
    );
    expect(intactButUnknown.result).toMatchObject({ kind: 'zip', verdict: 'unknown', export: null, manifest: { allMatch: true } });

    const empty = await verify(Buffer.alloc(0));
    expect(empty.status).toBe(400);
  });

  it('answers a director walled from the client as for a file it never exported', async () => {
    await live.director.access.screen.mutate({
      clientId,
      userId: (await sql<{ id: number }>(live.server.databaseUrl, `SELECT id FROM users WHERE email = 'wes@firm.test'`))[0]!.id,
      reason: 'Acted for the landlord',
    });
    const { result } = await verify(bundle, { cookie: walledDirectorCookie });
    expect(result).toMatchObject({ verdict: 'unknown', export: null, manifest: { allMatch: true } });
    expect(result!.summary).not.toContain('Amelia');
    const random = await verify(entry('messages.json'), { cookie: walledDirectorCookie });
    expect(random.result).toMatchObject({ verdict: 'unknown', export: null, summary: NO_RECORD });
    // A file of the client taken out of the bundle: no stored file to this director either, and audited as about nothing.
    const exhibit = await verify(entry('exhibits/002-inventory.pdf'), { cookie: walledDirectorCookie });
    expect(exhibit.result).toMatchObject({ verdict: 'unknown', export: null, storedFile: null, summary: NO_RECORD });
    expect(await lastVerification()).toMatchObject({ subject: 'export', detail: { attachmentId: null, auditEventId: null } });
    // A forged bundle claiming to be the client's is no record to them either: it names nothing.
    const claimed = await verify(await forgedBundle({ 'exhibits/002-inventory.pdf': Buffer.from('%PDF-1.4 forged') }), {
      cookie: walledDirectorCookie,
    });
    expect(claimed.result).toMatchObject({ verdict: 'altered', export: null });
    expect(claimed.result!.summary).not.toContain('Amelia');
    expect(claimed.result!.summary).not.toContain('#');
  });

  it('is for directors only, same-site only, and takes the file as octet-stream', async () => {
    const staff = await verify(bundle, { cookie: live.staffCookie });
    expect([staff.status, staff.json]).toEqual([
      403,
      { error: { code: 'FORBIDDEN', message: 'Only a director can verify a copy of an export.' } },
    ]);
    expect((await verify(bundle, { cookie: null })).status).toBe(401);
    expect((await verify(bundle, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect((await verify(bundle, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    const form = await verify(bundle, { headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expect(form.status).toBe(415);
  });
});

describe('a forged bundle (a file changed and the manifest edited to match)', () => {
  it('is altered: the file differs from what messages.json recorded, and its transcript names the export it claims to be', async () => {
    const forged = Buffer.from('%PDF-1.4 the inventory, as someone would rather it read');
    const { result } = await verify(await forgedBundle({ 'exhibits/002-inventory.pdf': forged }));
    const event = Number((await exportEvent(sha256(bundle)))!.id);
    expect(result).toMatchObject({
      verdict: 'altered',
      export: { auditEventId: event, format: 'zip', part: null, subject: { type: 'client', id: clientId } },
      manifest: { allMatch: false, extra: [] },
    });
    expect(result!.manifest!.files.map((file) => [file.path, file.matches, file.problem])).toEqual([
      ['transcript.pdf', true, null],
      ['messages.json', true, null],
      ['exhibits/001-file.jpg', true, null],
      ['exhibits/002-inventory.pdf', false, 'differs from what messages.json recorded for exhibit 2'],
    ]);
    expect(result!.manifest!.files[3]!.actualSha256).toBe(sha256(forged));
    expect(result!.summary).toMatch(
      new RegExp(
        `^This bundle's manifest is not the one recorded with export event #${event}: its transcript is that of the court bundle of Amelia Hart that Sam Staff exported on .+, but its manifest was changed since, and 1 file does not match what messages.json recorded \\(exhibits/002-inventory.pdf\\)\\.$`,
      ),
    );
    expect(await lastVerification()).toMatchObject({
      subject: `client:${clientId}`,
      detail: { verdict: 'altered', auditEventId: event, attachmentId: null },
    });
  });

  it('is altered when messages.json was rewritten to match too: the transcript is still the recorded one', async () => {
    const forged = Buffer.from('%PDF-1.4 a different inventory');
    const { result } = await verify(await forgedBundle({ 'exhibits/002-inventory.pdf': forged }, { recorded: true }));
    // Every row agrees with the forged manifest and the forged messages.json: only the trail can tell.
    expect(result!.manifest).toMatchObject({ allMatch: true });
    expect(result).toMatchObject({ verdict: 'altered', export: { auditEventId: Number((await exportEvent(sha256(bundle)))!.id) } });
    expect(result!.summary).toMatch(
      /^This bundle's manifest is not the one recorded with export event #\d+: its transcript is that of the court bundle of Amelia Hart .*, but its manifest was changed since\.$/,
    );
  });

  it('is altered offline too, by what messages.json recorded (npm run export:verify -- --offline)', async () => {
    const forged = path.join(work, 'forged.zip');
    await writeFile(forged, await forgedBundle({ 'exhibits/001-file.jpg': Buffer.from('not the photo') }));
    const run = await runScript('server/scripts/export-verify.ts', { ...process.env, LOG_LEVEL: 'warn' }, [forged, '--offline']);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain('differs:    exhibits/001-file.jpg: differs from what messages.json recorded for exhibit 1');
    expect(run.output).toContain('Verdict: altered.');
  }, 60_000);
});

describe('a file taken out of a bundle', () => {
  it('is known as the stored file with the same bytes, who sent it and when, yet not genuine (nothing signed it); audited with the client and the attachment', async () => {
    const [photo, inventory] = await sql<{ id: number; size: string }>(
      live.server.databaseUrl,
      `SELECT id, size FROM attachments WHERE state = 'stored' ORDER BY id`,
    );
    const { result } = await verify(entry('exhibits/002-inventory.pdf'), { fileName: '002-inventory.pdf' });
    expect(result).toMatchObject({
      kind: 'pdf',
      verdict: 'unknown',
      export: null,
      manifest: null,
      storedFile: {
        attachmentId: inventory!.id,
        fileName: 'inventory.pdf',
        mimeType: 'application/pdf',
        bytes: Number(inventory!.size),
        direction: 'inbound',
        subject: { type: 'client', id: clientId, name: 'Amelia Hart' },
        caseId: null,
        others: 0,
      },
    });
    expect(result!.summary).toMatch(
      /^This file is identical to inventory\.pdf, which Amelia Hart sent on \d{1,2} \w{3} \d{4} \(stored with this SHA-256\)\. It is a file the firm holds, not an export: no signature of the firm vouches for it\.$/,
    );
    expect(await lastVerification()).toMatchObject({
      subject: `client:${clientId}`,
      detail: { sha256: sha256(entry('exhibits/002-inventory.pdf')), verdict: 'unknown', auditEventId: null, attachmentId: inventory!.id },
    });

    const shown = await verify(entry('exhibits/001-file.jpg'));
    expect(shown.result).toMatchObject({
      verdict: 'unknown',
      storedFile: { attachmentId: photo!.id, fileName: null, mimeType: 'image/jpeg' },
    });
    expect(shown.result!.summary).toMatch(
      /^This file is identical to a photo with no file name \(image\/jpeg\), which Amelia Hart sent on /,
    );
  });
});

describe('a bundle missing files the firm did not hold', () => {
  it('is genuine, and its summary says the manifest gives the reason for each', async () => {
    const partial = await createClient({ name: 'Partial Files', phone: '+447700900456' });
    await sql(
      live.server.databaseUrl,
      `WITH m AS (INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
                  VALUES ('chat', 'inbound', '', NULL, $1, '447700900456', '{"kind": "image"}', '{}', now(), now()) RETURNING id)
       INSERT INTO attachments (communication_id, kind, mime_type, file_name, state, next_attempt_at) SELECT id, 'image', 'image/jpeg', NULL, 'pending', now() + interval '1 hour' FROM m`,
      [partial.id],
    );
    const copy = await download(`client/${partial.id}.zip`);
    const { result } = await verify(copy);
    expect(result).toMatchObject({
      verdict: 'genuine',
      manifest: { allMatch: true, missing: [{ exhibit: 1, reason: 'not yet downloaded from the provider when the bundle was made' }] },
    });
    expect(result!.summary).toMatch(
      /; every file matches its manifest\. 1 exhibit is not in the bundle as received: its manifest says why for each\.$/,
    );
  });
});

/** A POST whose body the test writes piece by piece (a slow or stalling link); settles on the answer. */
function slowPost(headers: Record<string, string>) {
  const req = http.request(`${live.server.url}/api/export/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', cookie: directorCookie, ...headers },
    agent: false,
  });
  const answer = new Promise<{ status: number | null; body: string }>((resolve) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? null, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', () => resolve({ status: null, body: '' }));
  });
  return { req, answer };
}

describe('a copy sent over a slow link', () => {
  it('is received for as long as it keeps moving, past the time a request must arrive in', async () => {
    const { req, answer } = slowPost({ 'content-length': String(bundle.length) });
    const pieces = 6;
    const size = Math.ceil(bundle.length / pieces);
    for (let i = 0; i < pieces; i++) {
      req.write(bundle.subarray(i * size, (i + 1) * size));
      // The link's pace (the behaviour under test): within the idle limit, longer than a request may take in all.
      await new Promise((resolve) => setTimeout(resolve, (REQUEST_MS * 1.5) / pieces));
    }
    req.end();
    const { status, body } = await answer;
    expect([status, ZVerifyResult.parse(JSON.parse(body)).verdict]).toEqual([200, 'genuine']);
  }, 30_000);

  it('is answered 408 when it stops arriving, and 413 when it says it is over 5 GiB; neither is recorded', async () => {
    const before = (await sql(live.server.databaseUrl, `SELECT 1 FROM audit_events WHERE action = 'export.verify'`)).length;
    const stalled = slowPost({ 'content-length': String(bundle.length) });
    stalled.req.write(bundle.subarray(0, 100));
    expect(await stalled.answer).toEqual({
      status: 408,
      body: JSON.stringify({ error: { code: 'TIMEOUT', message: 'Nothing arrived for 1 second: the check was stopped. Try again.' } }),
    });
    stalled.req.destroy();
    const huge = slowPost({ 'content-length': String(6 * 1024 ** 3) });
    huge.req.write(bundle.subarray(0, 100));
    expect(await huge.answer).toEqual({
      status: 413,
      body: JSON.stringify({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'A copy to verify can be at most 5 GiB.' } }),
    });
    huge.req.destroy();
    expect((await sql(live.server.databaseUrl, `SELECT 1 FROM audit_events WHERE action = 'export.verify'`)).length).toBe(before);
  }, 30_000);
});

describe('npm run export:verify', () => {
  // Each run starts `tsx` and loads the server's modules: ~5 s alone, over 15 s with two suites at once
  // on two cores (a clean clone's CI beside another run), where 60 s for four runs was not enough.
  const SCRIPT_RUN_MS = 30_000;
  const run = (file: string, args: string[], env: Record<string, string> = {}) =>
    runScript('server/scripts/export-verify.ts', { ...process.env, LOG_LEVEL: 'warn', ...env }, [file, ...args]);

  it(
    'checks a bundle offline: exit 0 when every file matches its manifest, 1 when one was altered, 2 for a wrong command',
    async () => {
      const intact = path.join(work, 'intact.zip');
      const altered = path.join(work, 'altered.zip');
      await writeFile(intact, bundle);
      await writeFile(
        altered,
        await zipOf(
          bundleEntries.map(([name, bytes]): [string, Buffer] => [
            name,
            name === 'messages.json' ? Buffer.concat([bytes, Buffer.from(' ')]) : bytes,
          ]),
        ),
      );
      const good = await run(intact, ['--offline']);
      expect(good.code, good.output).toBe(0);
      expect(good.output).toContain(`SHA-256: ${sha256(bundle)}`);
      expect(good.output).toContain('Manifest: 4 files listed; every one matches.');
      expect(good.output).toContain('not looked up in the audit trail (--offline)');
      const bad = await run(altered, ['--offline']);
      expect(bad.code, bad.output).toBe(1);
      expect(bad.output).toContain('differs:    messages.json');
      expect(bad.output).toContain('Verdict: altered.');
      expect((await run(intact, ['--offline', '--frobnicate'])).code).toBe(2);
      expect((await run(path.join(work, 'nothing-here.zip'), [])).code).toBe(2);
    },
    4 * SCRIPT_RUN_MS,
  );

  it(
    'looks the file up in the audit trail when a database is configured',
    async () => {
      const intact = path.join(work, 'bundle.zip');
      await writeFile(intact, bundle);
      const result = await run(intact, [], { DATABASE_URL: live.server.requestDatabaseUrl, DATABASE_OWNER_URL: live.server.databaseUrl });
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain(`(audit event #${(await exportEvent(sha256(bundle)))!.id})`);
      expect(result.output).toContain('Verdict: genuine.');
      // A file taken out of the bundle is found among the files the firm holds (the operator's command has no walls): held, not signed.
      const exhibit = path.join(work, '002-inventory.pdf');
      await writeFile(exhibit, entry('exhibits/002-inventory.pdf'));
      const stored = await run(exhibit, [], { DATABASE_URL: live.server.requestDatabaseUrl, DATABASE_OWNER_URL: live.server.databaseUrl });
      expect(stored.code, stored.output).toBe(1);
      expect(stored.output).toMatch(/Verdict: unknown\. This file is identical to inventory\.pdf, which Amelia Hart sent on /);
    },
    2 * SCRIPT_RUN_MS,
  );
});

/** A ZIP of these entries with a comment on the ZIP and empty folder entries, as an archiver may write one. */
function zipWith(entries: [string, Buffer][], options: { comment?: string; folders?: string[] }): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, bytes] of entries) zip.addBuffer(bytes, name);
  for (const folder of options.folders ?? []) zip.addEmptyDirectory(folder);
  zip.end({ forceZip64Format: false, comment: options.comment ?? '' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** A message of the client's with one stored file of these bytes, written in SQL as an old record would be; its attachment's id. */
async function storeClientFile(client: { id: number; phone: string }, bytes: Buffer, fileName: string | null, mimeType: string) {
  const [row] = await sql<{ id: number }>(
    live.server.databaseUrl,
    `WITH m AS (INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
                VALUES ('chat', 'inbound', '', NULL, $1, $2, '{"kind": "document"}', '{}', now(), now()) RETURNING id),
          a AS (INSERT INTO attachments (communication_id, kind, mime_type, file_name, state, size, sha256)
                SELECT id, 'document', $3, $4, 'stored', $5, $6 FROM m RETURNING id)
     INSERT INTO attachment_chunks (attachment_id, seq, data) SELECT id, 0, $7 FROM a RETURNING attachment_id AS id`,
    [client.id, client.phone, mimeType, fileName, bytes.length, sha256(bytes), bytes],
  );
  return row!.id;
}

const verifications = async () => (await sql(live.server.databaseUrl, `SELECT 1 FROM audit_events WHERE action = 'export.verify'`)).length;

describe('a hostile manifest', () => {
  it('listing one path 20,000 times is checked with work in proportion to its size, never long without letting the event loop turn', async () => {
    // Work is counted, not timed: every step through an array (a copy, a spread, a loop) is one.
    const rows = 20_000;
    const files = Array.from({ length: rows }, () => ({ path: 'exhibits/001-a.pdf', sha256: 'b'.repeat(64), bytes: 0 }));
    const manifest = { subject: null, exportedAt: '2026-01-01T00:00:00.000Z', exportedBy: null, auditHead: null, files, missing: [] };
    const file = path.join(work, 'one-path-many-times.zip');
    await writeFile(file, await zipOf([['manifest.json', Buffer.from(JSON.stringify(manifest))]]));
    const iterate = Array.prototype[Symbol.iterator];
    let steps = 0;
    let sinceTurn = 0;
    let longest = 0;
    let checking = true;
    const turn = () => {
      longest = Math.max(longest, sinceTurn);
      sinceTurn = 0;
      if (checking) setImmediate(turn);
    };
    Array.prototype[Symbol.iterator] = function (this: unknown[]) {
      const inner = iterate.call(this);
      return {
        next() {
          const step = inner.next();
          if (!step.done) {
            steps += 1;
            sinceTurn += 1;
          }
          return step;
        },
        [Symbol.iterator]() {
          return this;
        },
      } as ArrayIterator<unknown>;
    };
    let check: Awaited<ReturnType<typeof checkExportFile>>;
    try {
      setImmediate(turn);
      check = await checkExportFile(file);
    } finally {
      checking = false;
      Array.prototype[Symbol.iterator] = iterate;
    }
    turn();
    expect(check.manifest).toMatchObject({ allMatch: false });
    expect(check.manifest!.files).toHaveLength(rows);
    expect(check.manifest!.files.filter((row) => row.problem === NOT_IN_ZIP)).toHaveLength(rows);
    // Linear: a few steps a row (copying the rows listed before each one was 200 million).
    expect(steps).toBeLessThanOrEqual(20 * rows);
    // And in short steps: the event loop turns at least every YIELD_EVERY rows, whatever the number of rows.
    expect(longest).toBeLessThanOrEqual(20 * YIELD_EVERY);
  }, 120_000);

  it('claiming a subject 200,000 levels deep or a name of a megabyte is answered, the claims left out, and recorded once', async () => {
    const base = JSON.parse(entry('manifest.json').toString('utf8')) as Record<string, unknown>;
    const depth = 200_000;
    const deep = Buffer.from(
      `{"subject": ${'['.repeat(depth)}${']'.repeat(depth)}, ${JSON.stringify({ ...base, subject: undefined }).slice(1)}`,
    );
    const before = await verifications();
    const nested = await verify(await zipOf([...bundleEntries.filter(([name]) => name !== 'manifest.json'), ['manifest.json', deep]]));
    expect(nested.status).toBe(200);
    expect(nested.result!.manifest).toMatchObject({ subject: null, exportedBy: { name: 'Sam Staff' } });
    expect(await verifications()).toBe(before + 1);

    const long = Buffer.from(
      JSON.stringify({
        ...base,
        exportedBy: { id: 1, name: 'x'.repeat(1024 * 1024), email: 'a@b' },
        auditHead: { id: 1, hash: 'h', more: [[[]]] },
      }),
    );
    const big = await verify(await zipOf([...bundleEntries.filter(([name]) => name !== 'manifest.json'), ['manifest.json', long]]));
    expect(big.status).toBe(200);
    // Only the shapes Firm Chat writes: the megabyte of name is no claim, and what a claim carries besides is dropped.
    expect(big.result!.manifest).toMatchObject({
      exportedBy: null,
      auditHead: { id: 1, hash: 'h' },
      subject: { type: 'client', id: clientId },
    });
    expect(big.result!.manifest!.auditHead).toEqual({ id: 1, hash: 'h' });
    expect(JSON.stringify(big.json).length).toBeLessThan(long.length);
    expect(await verifications()).toBe(before + 2);
  });
});

describe('a bundle packed into a new ZIP', () => {
  it('is altered when the ZIP carries anything its manifest does not list: a comment, a folder, an entry named otherwise in its own header', async () => {
    const commented = await verify(await zipWith(bundleEntries, { comment: 'CERTIFIED COMPLETE by the court registry' }));
    expect(commented.result).toMatchObject({ verdict: 'altered', manifest: { allMatch: false, extra: ['(a comment on the ZIP)'] } });
    expect(commented.result!.summary).toContain('the ZIP carries what no bundle has: (a comment on the ZIP)');

    const folder = await verify(await zipWith(bundleEntries, { folders: ['exhibits/003-the-original-contract.pdf/'] }));
    expect(folder.result).toMatchObject({
      verdict: 'altered',
      manifest: { allMatch: false, extra: ['exhibits/003-the-original-contract.pdf/ (a folder)'] },
    });

    // The local header's copy of the name (the one a reader streaming the ZIP goes by), the same length: the archive stays readable.
    const renamed = await zipOf(bundleEntries);
    renamed.write('exhibits/002-inventory.exe', renamed.indexOf('exhibits/002-inventory.pdf'));
    const local = await verify(renamed);
    expect(local.result).toMatchObject({
      verdict: 'altered',
      manifest: {
        allMatch: false,
        extra: ["exhibits/002-inventory.exe (so named in its own header; the ZIP's directory says exhibits/002-inventory.pdf)"],
      },
    });
    // The files themselves all match: only what was added tells.
    expect(local.result!.manifest!.files.every((file) => file.matches)).toBe(true);
  });
});

describe('a file that claims to be an export', () => {
  let forger: { id: number; phone: string };
  beforeAll(async () => {
    forger = { id: (await createClient({ name: 'Forge Client', phone: '+447700900610' })).id, phone: '447700900610' };
  });

  it('is never genuine for being among the files a client sent: unknown, with the file it came as', async () => {
    // A bundle made up whole, consistent with its own manifest, sent in by the client as a document.
    const transcript = Buffer.from('%PDF-1.4 forged transcript: the firm admitted liability');
    const messages = Buffer.from(
      JSON.stringify({ firm: 'Hart & Co Solicitors', exportedAt: '2026-11-01T10:00:00.000Z', count: 0, messages: [] }),
    );
    const manifest = Buffer.from(
      JSON.stringify({
        subject: { type: 'client', id: forger.id, name: 'Forge Client' },
        exportedAt: '2026-11-01T10:00:00.000Z',
        exportedBy: { id: 2, name: 'Dee Director', email: 'dee@firm.test' },
        auditHead: { id: 1, hash: 'ab'.repeat(32) },
        files: [
          { path: 'transcript.pdf', sha256: sha256(transcript), bytes: transcript.length },
          { path: 'messages.json', sha256: sha256(messages), bytes: messages.length },
        ],
        missing: [],
      }),
    );
    const forged = await zipOf([
      ['transcript.pdf', transcript],
      ['messages.json', messages],
      ['manifest.json', manifest],
    ]);
    const attachmentId = await storeClientFile(forger, forged, 'Chat bundle - Forge Client.zip', 'application/zip');
    const { result } = await verify(forged);
    expect(result).toMatchObject({
      kind: 'zip',
      verdict: 'unknown',
      export: null,
      manifest: { allMatch: true },
      storedFile: { attachmentId, fileName: 'Chat bundle - Forge Client.zip', direction: 'inbound', subject: { id: forger.id } },
    });
    expect(result!.summary).toMatch(
      /^This is not an export the firm made: no export in the audit trail has it\. It is only a file that came in from Forge Client on \d+ \w{3} \d{4} \(Chat bundle - Forge Client\.zip, stored with this SHA-256\)\.$/,
    );
    expect(await lastVerification()).toMatchObject({ subject: `client:${forger.id}`, detail: { verdict: 'unknown', attachmentId } });

    // A PDF that says Firm Chat made it, and JSON with an export's header: the same.
    const pdf = Buffer.from(
      '%PDF-1.4\n1 0 obj\n(Firm Chat)\nendobj\n2 0 obj\n<< /Creator 1 0 R >>\nendobj\ntrailer << /Info 2 0 R >>\n%%EOF\n',
    );
    await storeClientFile(forger, pdf, 'Chat record.pdf', 'application/pdf');
    const claimedPdf = await verify(pdf);
    expect(claimedPdf.result).toMatchObject({ kind: 'pdf', verdict: 'unknown', storedFile: { fileName: 'Chat record.pdf' } });
    expect(claimedPdf.result!.summary).toMatch(/^This is not an export the firm made: /);
    await storeClientFile(forger, messages, 'Chat record.json', 'application/json');
    const claimedJson = await verify(messages);
    expect(claimedJson.result).toMatchObject({ kind: 'json', verdict: 'unknown', storedFile: { fileName: 'Chat record.json' } });

    // A file that claims nothing is still known as the file it is, and still not genuine: nothing signed it.
    const letter = Buffer.from('%PDF-1.4 a letter the client wrote');
    await storeClientFile(forger, letter, 'letter.pdf', 'application/pdf');
    expect((await verify(letter)).result).toMatchObject({ verdict: 'unknown', storedFile: { fileName: 'letter.pdf' } });
  });
});

describe('exhibits taken out or declared missing', () => {
  /** The bundle's manifest, edited. */
  const manifestOf = (edit: (manifest: { files: { path: string }[]; missing: unknown[] }) => void) => {
    const manifest = JSON.parse(entry('manifest.json').toString('utf8')) as { files: { path: string }[]; missing: unknown[] };
    edit(manifest);
    return Buffer.from(JSON.stringify(manifest, null, 2));
  };
  const withManifest = (manifest: Buffer, leave: string) =>
    zipOf(
      bundleEntries
        .filter(([name]) => name !== leave)
        .map(([name, bytes]): [string, Buffer] => [name, name === 'manifest.json' ? manifest : bytes]),
    );
  const offline = (file: string) =>
    runScript('server/scripts/export-verify.ts', { ...process.env, LOG_LEVEL: 'warn' }, [file, '--offline']);

  it('are altered offline and online: one taken out of the ZIP and the manifest alike, one put among the missing, one replaced and declared so', async () => {
    const dropped = await withManifest(
      manifestOf((manifest) => (manifest.files = manifest.files.filter((file) => file.path !== 'exhibits/002-inventory.pdf'))),
      'exhibits/002-inventory.pdf',
    );
    const declared = await withManifest(
      manifestOf((manifest) => {
        manifest.files = manifest.files.filter((file) => file.path !== 'exhibits/002-inventory.pdf');
        manifest.missing.push({
          exhibit: 2,
          name: 'inventory.pdf',
          reason: 'destroyed since it was received (for example under the retention policy)',
        });
      }),
      'exhibits/002-inventory.pdf',
    );
    // Replaced, the manifest edited to match, and declared among the missing as a changed file would be.
    const other = Buffer.from('%PDF-1.4 an inventory someone would rather it were');
    const replaced = await zipOf(
      bundleEntries.map(([name, bytes]): [string, Buffer] => [
        name,
        name === 'exhibits/002-inventory.pdf'
          ? other
          : name === 'manifest.json'
            ? manifestOf((manifest) => {
                Object.assign(
                  manifest.files.find((file) => file.path === 'exhibits/002-inventory.pdf')!,
                  {
                    sha256: sha256(other),
                    bytes: other.length,
                  },
                );
                manifest.missing.push({
                  exhibit: 2,
                  name: 'inventory.pdf',
                  reason:
                    'its bytes no longer match the SHA-256 recorded when it was stored: exhibits/002-inventory.pdf holds what is stored now',
                });
              })
            : bytes,
      ]),
    );
    const online = await verify(dropped);
    expect(online.result).toMatchObject({ verdict: 'altered', manifest: { allMatch: false } });
    expect(online.result!.manifest!.files.at(-1)).toEqual({
      path: 'exhibits/002-inventory.pdf',
      sha256: sha256(entry('exhibits/002-inventory.pdf')),
      bytes: entry('exhibits/002-inventory.pdf').length,
      found: false,
      matches: false,
      actualSha256: null,
      problem: 'messages.json records this exhibit (exhibit 2), but it is neither in the ZIP nor among the manifest’s missing files',
    });
    const said = await verify(declared);
    expect(said.result).toMatchObject({
      verdict: 'altered',
      manifest: { allMatch: true, missing: [{ exhibit: 2, problem: 'listed as missing although messages.json records it as held' }] },
    });
    expect(said.result!.summary).toContain('1 exhibit is listed as missing although messages.json records it as held (exhibit 2)');

    const swapped = await verify(replaced);
    expect(swapped.result).toMatchObject({
      verdict: 'altered',
      manifest: { allMatch: true, missing: [{ exhibit: 2, problem: 'listed as missing although messages.json records it as held' }] },
    });
    for (const [name, bytes] of [
      ['dropped.zip', dropped],
      ['declared.zip', declared],
      ['replaced.zip', replaced],
    ] as const) {
      const file = path.join(work, name);
      await writeFile(file, bytes);
      const run = await offline(file);
      expect([name, run.code], run.output).toEqual([name, 1]);
      expect(run.output).toContain('Verdict: altered.');
    }
  }, 60_000);

  it('a file whose stored bytes lack their start is listed as missing with the reason; genuine by the trail, altered offline', async () => {
    const gaps = await createClient({ name: 'Gap Client', phone: '+447700900620' });
    const bytes = randomBytes(3000);
    await storeClientFile({ id: gaps.id, phone: '447700900620' }, bytes, 'survey.pdf', 'application/pdf');
    // The file as two chunks, the first since lost (an old record, a restore gone wrong): the rest is not the file.
    const [stored] = await sql<{ id: number }>(live.server.databaseUrl, `SELECT id FROM attachments WHERE file_name = 'survey.pdf'`);
    await sql(live.server.databaseUrl, `DELETE FROM attachment_chunks WHERE attachment_id = $1`, [stored!.id]);
    await sql(live.server.databaseUrl, `INSERT INTO attachment_chunks (attachment_id, seq, data) VALUES ($1, 1, $2)`, [
      stored!.id,
      bytes.subarray(1000),
    ]);
    const copy = await download(`client/${gaps.id}.zip`);
    const entries = await readZip(copy);
    expect(entries.map(([name]) => name)).toEqual(['transcript.pdf', 'messages.json', 'manifest.json', 'manifest.sig']);
    const { result } = await verify(copy);
    expect(result).toMatchObject({
      verdict: 'genuine',
      manifest: {
        allMatch: true,
        missing: [
          {
            exhibit: 1,
            name: 'survey.pdf',
            reason: 'the start of its stored bytes is missing from the database: none of it could be copied when the bundle was made',
            problem: 'listed as missing although messages.json records it as held',
          },
        ],
      },
    });
    // Without the trail, the firm's signature on the manifest vouches for its list of missing files.
    const file = path.join(work, 'gap.zip');
    await writeFile(file, copy);
    const run = await offline(file);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('(listed as missing although messages.json records it as held)');
    expect(run.output).toContain('Verdict: genuine.');
    // Without the signature, the manifest's word is all there is for it: not intact.
    const unsigned = path.join(work, 'gap-unsigned.zip');
    await writeFile(unsigned, await zipOf(entries.filter(([name]) => name !== 'manifest.sig')));
    const bare = await offline(unsigned);
    expect(bare.code, bare.output).toBe(1);
    expect(bare.output).toContain('Verdict: altered.');
  }, 60_000);
});
