import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fromBufferPromise } from 'yauzl';
import { ZipFile } from 'yazl';
import { z } from 'zod';
import { createUser } from '../../server/auth/users';
import { createClient } from '../../server/crm/clients';
import { runScript } from '../support/app-process';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';

// Verify a copy (README "Evidence exports"): POST /api/export/verify and npm run export:verify say
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
      missing: z.array(z.object({ exhibit: z.number(), name: z.string(), reason: z.string() })),
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

/** Every entry of a ZIP, in order (a test's bundles are small). */
async function readZip(bytes: Buffer): Promise<[string, Buffer][]> {
  const zip = await fromBufferPromise(bytes, { lazyEntries: true });
  const entries: [string, Buffer][] = [];
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    entries.push([entry.fileName, Buffer.concat(chunks)]);
  }
  return entries;
}

/** A ZIP of these entries, as anyone could make one (yazl, deflated). */
function zipOf(entries: [string, Buffer][]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, bytes] of entries) zip.addBuffer(bytes, name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

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
      bundleEntries.filter(([name]) => name !== 'manifest.json').map(([name, bytes]) => [name, true, true, sha256(bytes), null]),
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
  it('is known as the stored file with the same bytes: who sent it and when, audited with the client and the attachment', async () => {
    const [photo, inventory] = await sql<{ id: number; size: string }>(
      live.server.databaseUrl,
      `SELECT id, size FROM attachments WHERE state = 'stored' ORDER BY id`,
    );
    const { result } = await verify(entry('exhibits/002-inventory.pdf'), { fileName: '002-inventory.pdf' });
    expect(result).toMatchObject({
      kind: 'pdf',
      verdict: 'genuine',
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
      /^This file is identical to inventory\.pdf, which Amelia Hart sent on \d{1,2} \w{3} \d{4} \(stored with this SHA-256\)\.$/,
    );
    expect(await lastVerification()).toMatchObject({
      subject: `client:${clientId}`,
      detail: { sha256: sha256(entry('exhibits/002-inventory.pdf')), verdict: 'genuine', auditEventId: null, attachmentId: inventory!.id },
    });

    const shown = await verify(entry('exhibits/001-file.jpg'));
    expect(shown.result).toMatchObject({
      verdict: 'genuine',
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
  const run = (file: string, args: string[], env: Record<string, string> = {}) =>
    runScript('server/scripts/export-verify.ts', { ...process.env, LOG_LEVEL: 'warn', ...env }, [file, ...args]);

  it('checks a bundle offline: exit 0 when every file matches its manifest, 1 when one was altered, 2 for a wrong command', async () => {
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
  }, 60_000);

  it('looks the file up in the audit trail when a database is configured', async () => {
    const intact = path.join(work, 'bundle.zip');
    await writeFile(intact, bundle);
    const result = await run(intact, [], { DATABASE_URL: live.server.requestDatabaseUrl, DATABASE_OWNER_URL: live.server.databaseUrl });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(`(audit event #${(await exportEvent(sha256(bundle)))!.id})`);
    expect(result.output).toContain('Verdict: genuine.');
    // A file taken out of the bundle is found among the files the firm holds (the operator's command has no walls).
    const exhibit = path.join(work, '002-inventory.pdf');
    await writeFile(exhibit, entry('exhibits/002-inventory.pdf'));
    const stored = await run(exhibit, [], { DATABASE_URL: live.server.requestDatabaseUrl, DATABASE_OWNER_URL: live.server.databaseUrl });
    expect(stored.code, stored.output).toBe(0);
    expect(stored.output).toMatch(/Verdict: genuine\. This file is identical to inventory\.pdf, which Amelia Hart sent on /);
  }, 60_000);
});
