import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/core/config';
import { createLogger } from '../../server/core/logger';
import { createUser } from '../../server/auth/users';
import { startServer, type TRunningServer } from '../../server/app/start-server';
import { pruneExpiredRows } from '../../server/maintenance/prune-expired';
import { uploadSlots } from '../../server/media/uploads/upload-slots';
import { captureLogLines } from '../support/log-capture';
import { sql } from '../support/sql';
import { startTestServer, type TTestServer } from '../support/test-server';
import { sessionCookie } from '../support/session-cookie';

// Shortened for the test: in production a request other than an upload has 300 s to arrive and an
// upload may sit idle 30 s.
const REQUEST_MS = 2_000;
const IDLE_MS = 1_000;
const KB = 1024;

const { lines, destination } = captureLogLines();
let server: TTestServer;
let cookie: string;
let otherCookie: string;

const signIn = (baseUrl: string, email: string) => sessionCookie(baseUrl, email, 'upload-password');

beforeAll(async () => {
  server = await startTestServer({}, createLogger('info', destination), { timeouts: { requestMs: REQUEST_MS, uploadIdleMs: IDLE_MS } });
  await createUser({ email: 'sam@firm.test', name: 'Sam', role: 'staff', password: 'upload-password' });
  await createUser({ email: 'kit@firm.test', name: 'Kit', role: 'staff', password: 'upload-password' });
  cookie = await signIn(server.url, 'sam@firm.test');
  otherCookie = await signIn(server.url, 'kit@firm.test');
});
afterAll(() => server?.stop());

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

type TAnswer = { status: number | null; headers: IncomingHttpHeaders; body: string; error?: string; at: number };

/** A request whose body the test writes piece by piece (a slow or stalling link); `answer` settles on the answer or a cut connection. */
function openRequest(baseUrl: string, method: string, path: string, headers: Record<string, string | number>) {
  const req = http.request(new URL(path, baseUrl), { method, headers, agent: false });
  const answer = new Promise<TAnswer>((resolve) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = () =>
        resolve({ status: res.statusCode ?? null, headers: res.headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: null, headers: {}, body: '', error: error.code, at: Date.now() }));
  });
  return { req, answer };
}

function multipart(file: Buffer, type: string, name: string, fields: Record<string, string> = {}) {
  const boundary = `----slow-link-${randomBytes(6).toString('hex')}`;
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  const head = `${parts.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length, cookie } };
}

async function download(baseUrl: string, attachmentId: number): Promise<Buffer> {
  const res = await fetch(`${baseUrl}/api/media/${attachmentId}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const requestLines = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');

describe('POST /api/media on a slow link', () => {
  it('an upload trickled for longer than any request may take, never idle for the idle limit, completes', async () => {
    const file = randomBytes(64 * KB);
    const { body, headers } = multipart(file, 'application/pdf', 'slow.pdf');
    const started = Date.now();
    const { req, answer } = openRequest(server.url, 'POST', '/api/media', headers);
    const pieces = 8;
    const size = Math.ceil(body.length / pieces);
    for (let i = 0; i < pieces; i++) {
      req.write(body.subarray(i * size, (i + 1) * size));
      if (i < pieces - 1) await delay(IDLE_MS / 2); // the slow link: always under the idle limit
    }
    req.end();
    const got = await answer;
    expect(got.at - started).toBeGreaterThan(REQUEST_MS);
    expect(got.status).toBe(200);
    const uploaded = JSON.parse(got.body) as { attachmentId: number; size: number };
    expect(uploaded.size).toBe(file.length);
    expect(sha256(await download(server.url, uploaded.attachmentId))).toBe(sha256(file));
  });

  it('stalled uploads are answered 408 after the idle limit, give their slots back at once, and the request log says 408', async () => {
    const stalled = [0, 1, 2].map(() => {
      const { body, headers } = multipart(randomBytes(200 * KB), 'application/pdf', 'stalled.pdf');
      const open = openRequest(server.url, 'POST', '/api/media', headers);
      open.req.write(body.subarray(0, 100 * KB)); // then nothing: the link has stalled
      return open;
    });
    await expect.poll(() => uploadSlots.inUse).toBe(3);
    // Their three slots are all this person may hold: a fourth upload waits for one of them.
    const busy = await fetch(`${server.url}/api/media`, { method: 'POST', ...multipartInit(randomBytes(KB)) });
    expect(busy.status).toBe(429);

    const answers = await Promise.all(stalled.map((s) => s.answer));
    for (const got of answers) {
      expect(got.status).toBe(408);
      expect(JSON.parse(got.body)).toMatchObject({ error: { code: 'TIMEOUT' } });
    }
    expect(uploadSlots.inUse).toBe(0);
    const file = randomBytes(KB);
    const next = await fetch(`${server.url}/api/media`, { method: 'POST', ...multipartInit(file) });
    expect(next.status).toBe(200);

    await expect.poll(() => requestLines().filter((l) => l.path === '/api/media' && l.cut === 'idle')).toHaveLength(3);
    for (const line of requestLines().filter((l) => l.path === '/api/media' && l.cut === 'idle')) {
      expect(line).toMatchObject({ method: 'POST', status: 408 });
    }
    for (const s of stalled) s.req.destroy();
  });

  it('a photo sent as a document may be as large as a document', async () => {
    const photo = randomBytes(6 * 1024 * KB);
    const res = await fetch(`${server.url}/api/media`, {
      method: 'POST',
      ...multipartInit(photo, 'image/jpeg', 'big photo.jpg', { as: 'document' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ kind: 'document', mimeType: 'image/jpeg', size: photo.length });
  });
});

function multipartInit(file: Buffer, type = 'application/pdf', name = 'file.pdf', fields: Record<string, string> = {}) {
  const { body, headers } = multipart(file, type, name, fields);
  return { body: new Uint8Array(body), headers: { ...headers, 'content-length': String(headers['content-length']) } };
}

describe('other routes keep a deadline on their bodies', () => {
  it('a body trickled past the deadline loses its connection, and the request log does not call it a 200', async () => {
    const started = Date.now();
    const { req, answer } = openRequest(server.url, 'POST', '/trpc/auth.signIn', {
      'content-type': 'application/json',
      'content-length': 200,
    });
    req.write('{"json":');
    const got = await answer;
    expect(got.at - started).toBeGreaterThanOrEqual(REQUEST_MS - 100);
    expect(got.status).not.toBe(200);
    await expect
      .poll(() => requestLines().find((l) => l.path === '/trpc/auth.signIn' && l.status !== 200))
      .toMatchObject({ method: 'POST', status: null, aborted: true, cut: 'deadline' });
  });
});

const TUS = { 'tus-resumable': '1.0.0' };
const encodeMetadata = (metadata: Record<string, string>) =>
  Object.entries(metadata)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');

async function createUpload(
  baseUrl: string,
  size: number,
  metadata: Record<string, string> = { filename: 'evidence.pdf', filetype: 'application/pdf' },
  headers: Record<string, string> = { cookie },
) {
  return fetch(`${baseUrl}/api/uploads`, {
    method: 'POST',
    headers: { ...TUS, ...headers, 'upload-length': String(size), 'upload-metadata': encodeMetadata(metadata) },
  });
}

async function offsetOf(baseUrl: string, location: string, headers: Record<string, string> = { cookie }) {
  const res = await fetch(new URL(location, baseUrl), { method: 'HEAD', headers: { ...TUS, ...headers } });
  return { status: res.status, offset: Number(res.headers.get('upload-offset')), length: Number(res.headers.get('upload-length')) };
}

function patch(baseUrl: string, location: string, offset: number, bytes: Buffer) {
  return fetch(new URL(location, baseUrl), {
    method: 'PATCH',
    headers: { ...TUS, cookie, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
    body: new Uint8Array(bytes),
  });
}

async function storedOffset(location: string): Promise<number> {
  const id = location.split('/').pop()!;
  const [row] = await sql<{ offset: number }>(server.databaseUrl, `SELECT "offset" FROM resumable_uploads WHERE id = '${id}'`);
  return Number(row?.offset ?? 0);
}

async function attachmentOf(baseUrl: string, location: string) {
  const res = await fetch(new URL(`${location}/attachment`, baseUrl), { headers: { cookie } });
  return { status: res.status, body: (await res.json()) as { attachmentId: number; kind: string; fileName: string; size: number } };
}

describe('resumable uploads (tus 1.0 at /api/uploads)', () => {
  it('an upload cut halfway resumes with HEAD and PATCH from the offset stored, and becomes an attachment with the same bytes', async () => {
    const file = randomBytes(1536 * KB);
    const created = await createUpload(server.url, file.length);
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    expect(location).toMatch(/^\/api\/uploads\/[0-9a-f]{32}$/);

    const first = openRequest(server.url, 'PATCH', location, {
      ...TUS,
      cookie,
      'content-type': 'application/offset+octet-stream',
      'upload-offset': 0,
      'content-length': file.length,
    });
    first.req.write(file.subarray(0, 600 * KB));
    await expect.poll(() => storedOffset(location)).toBeGreaterThanOrEqual(512 * KB);
    first.req.destroy(); // the link drops
    await first.answer;

    const { status, offset, length } = await offsetOf(server.url, location);
    expect(status).toBe(200);
    expect(length).toBe(file.length);
    expect(offset).toBeGreaterThanOrEqual(512 * KB);
    expect(offset).toBeLessThanOrEqual(600 * KB);

    const rest = await patch(server.url, location, offset, file.subarray(offset));
    expect(rest.status).toBe(204);
    expect(rest.headers.get('upload-offset')).toBe(String(file.length));
    const attachmentId = Number(rest.headers.get('upload-attachment-id'));
    expect(attachmentId).toBeGreaterThan(0);

    const attachment = await attachmentOf(server.url, location);
    expect(attachment).toEqual({
      status: 200,
      body: { attachmentId, kind: 'document', mimeType: 'application/pdf', fileName: 'evidence.pdf', size: file.length },
    });
    expect(sha256(await download(server.url, attachmentId))).toBe(sha256(file));
    const [row] = await sql<{ sha256: string; state: string; uploaded_by: number }>(
      server.databaseUrl,
      `SELECT sha256, state, uploaded_by FROM attachments WHERE id = ${attachmentId}`,
    );
    expect(row).toMatchObject({ sha256: sha256(file), state: 'stored' });
    // The parts went into the attachment; only the upload's own row is left, pointing at it.
    expect(await sql(server.databaseUrl, `SELECT 1 FROM resumable_upload_parts WHERE upload_id = '${location.split('/').pop()}'`)).toEqual(
      [],
    );
  });

  it('a stalled PATCH is ended after the idle limit, frees its slot, keeps every byte that arrived, and resumes', async () => {
    const file = randomBytes(1536 * KB);
    const location = (await createUpload(server.url, file.length)).headers.get('location')!;
    const stalled = openRequest(server.url, 'PATCH', location, {
      ...TUS,
      cookie,
      'content-type': 'application/offset+octet-stream',
      'upload-offset': 0,
      'content-length': file.length,
    });
    stalled.req.write(file.subarray(0, 300 * KB)); // then the link stalls
    await expect.poll(() => uploadSlots.inUse).toBe(1);
    const got = await stalled.answer;
    expect(got.status).toBeNull(); // nothing to answer a stalled link with: the connection is closed
    await expect.poll(() => uploadSlots.inUse).toBe(0);
    await expect
      .poll(() => requestLines().find((l) => l.path === location && l.method === 'PATCH'))
      .toMatchObject({ status: null, aborted: true, cut: 'idle' });

    // Everything that arrived before the stall is kept, not only whole parts.
    expect((await offsetOf(server.url, location)).offset).toBe(300 * KB);
    const rest = await patch(server.url, location, 300 * KB, file.subarray(300 * KB));
    expect(rest.status).toBe(204);
    const { body } = await attachmentOf(server.url, location);
    expect(sha256(await download(server.url, body.attachmentId))).toBe(sha256(file));
  });

  it('a PATCH from a stale offset is refused with 409 and changes nothing', async () => {
    const file = randomBytes(10 * KB);
    const location = (await createUpload(server.url, file.length)).headers.get('location')!;
    expect((await patch(server.url, location, 0, file.subarray(0, 4 * KB))).status).toBe(204);
    expect((await patch(server.url, location, 0, file.subarray(0, 4 * KB))).status).toBe(409);
    expect((await offsetOf(server.url, location)).offset).toBe(4 * KB);
  });

  it('over its limit an upload is refused with 413, from Upload-Length and on the bytes; as a document a photo may be larger', async () => {
    const photo = await createUpload(server.url, 5 * 1024 * KB + 1, { filename: 'scan.jpg', filetype: 'image/jpeg' });
    expect(photo.status).toBe(413);
    expect(await photo.json()).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'A photo (JPEG or PNG) can be at most 5.0 MB. Nothing was uploaded.' },
    });
    const huge = await createUpload(server.url, 100 * 1024 * KB + 1);
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { error: { message: string } }).error.message).toBe(
      'A document can be at most 100 MB. Nothing was uploaded.',
    );
    expect((await createUpload(server.url, 0)).status).toBe(400);

    const asDocument = await createUpload(server.url, 6 * 1024 * KB, { filename: 'scan.jpg', filetype: 'image/jpeg', as: 'document' });
    expect(asDocument.status).toBe(201);

    // More bytes than the upload declared: refused, nothing past the declared length is kept.
    const small = (await createUpload(server.url, 10)).headers.get('location')!;
    const over = await patch(server.url, small, 0, randomBytes(20));
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: { message: string } }).error.message).toMatch(/More bytes were sent than the upload said/);
    expect((await offsetOf(server.url, small)).offset).toBe(0);

    const sent = (await createUpload(server.url, 6 * KB, { filename: 'scan.jpg', filetype: 'image/jpeg', as: 'document' })).headers.get(
      'location',
    )!;
    expect((await patch(server.url, sent, 0, randomBytes(6 * KB))).status).toBe(204);
    expect((await attachmentOf(server.url, sent)).body).toMatchObject({ kind: 'document', mimeType: 'image/jpeg', fileName: 'scan.jpg' });
  });

  it('needs a session (401), the same site (403), and is nobody else’s (404)', async () => {
    expect((await createUpload(server.url, 10, undefined, {})).status).toBe(401);
    expect((await createUpload(server.url, 10, undefined, { cookie, origin: 'https://evil.example' })).status).toBe(403);
    const location = (await createUpload(server.url, 10)).headers.get('location')!;
    expect((await offsetOf(server.url, location, {})).status).toBe(401);
    expect((await offsetOf(server.url, location, { cookie: otherCookie })).status).toBe(404);
    const theirs = await fetch(new URL(location, server.url), {
      method: 'PATCH',
      headers: { ...TUS, cookie: otherCookie, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
      body: new Uint8Array(randomBytes(10)),
    });
    expect(theirs.status).toBe(404);
    const attachment = await fetch(new URL(`${location}/attachment`, server.url), { headers: { cookie: otherCookie } });
    expect(attachment.status).toBe(404);
    expect((await offsetOf(server.url, location)).offset).toBe(0);
  });

  it('an upload not finished within a day is gone (410), and the expiry removes it with its parts', async () => {
    const location = (await createUpload(server.url, 10 * KB)).headers.get('location')!;
    expect((await patch(server.url, location, 0, randomBytes(4 * KB))).status).toBe(204);
    const id = location.split('/').pop()!;
    await sql(server.databaseUrl, `UPDATE resumable_uploads SET created_at = now() - interval '25 hours' WHERE id = $1`, [id]);
    expect((await offsetOf(server.url, location)).status).toBe(410);
    expect((await pruneExpiredRows()).resumableUploads).toBeGreaterThanOrEqual(1);
    expect(await sql(server.databaseUrl, 'SELECT 1 FROM resumable_upload_parts WHERE upload_id = $1', [id])).toEqual([]);
    expect((await offsetOf(server.url, location)).status).toBe(404);
  });

  it('shares the upload limits with POST /api/media: a PATCH beyond them gets 429', async () => {
    const stalled = [0, 1, 2].map(() => {
      const { body, headers } = multipart(randomBytes(200 * KB), 'application/pdf', 'stalled.pdf');
      const open = openRequest(server.url, 'POST', '/api/media', headers);
      open.req.write(body.subarray(0, 100 * KB));
      return open;
    });
    await expect.poll(() => uploadSlots.inUse).toBe(3);
    const location = (await createUpload(server.url, 10)).headers.get('location')!;
    expect((await patch(server.url, location, 0, randomBytes(10))).status).toBe(429);
    for (const s of stalled) s.req.destroy();
    await expect.poll(() => uploadSlots.inUse).toBe(0);
    expect((await patch(server.url, location, 0, randomBytes(10))).status).toBe(204);
  });
});

describe('resumable uploads across a restart', () => {
  it('half an upload sent to one server is finished on the next one, from the same database', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: server.databaseUrl, PORT: '0' });
    const file = randomBytes(700 * KB);
    let first: TRunningServer | undefined = await startServer(config, createLogger('silent'));
    let second: TRunningServer | undefined;
    try {
      const location = (await createUpload(first.url, file.length)).headers.get('location')!;
      expect((await patch(first.url, location, 0, file.subarray(0, 350 * KB))).status).toBe(204);
      await first.close();
      first = undefined;

      second = await startServer(config, createLogger('silent'));
      const { offset } = await offsetOf(second.url, location);
      expect(offset).toBe(350 * KB);
      expect((await patch(second.url, location, offset, file.subarray(offset))).status).toBe(204);
      const { body } = await attachmentOf(second.url, location);
      expect(sha256(await download(second.url, body.attachmentId))).toBe(sha256(file));
    } finally {
      await first?.close();
      await second?.close();
    }
  });
});
