import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { drainBeforeClosing } from '../../server/http/drain-unread-body';
import { tooLargeMessage, UPLOAD_LIMITS } from '../../shared/media-limits';
import { rawUpload, type TRawUpload } from '../support/raw-upload';
import { startTestServer, type TTestServer } from '../support/test-server';
import { sign, WEBHOOK_SECRET } from '../support/webhook';
import { sessionCookie } from '../support/session-cookie';

// A client uploading past a limit reads the 413 and its sentence, never a reset connection: the
// server answers, then reads and drops the rest of the body (bounded) before it closes. fetch reads
// an answer that came before a reset, so the reset itself is watched for with a plain socket client
// that keeps sending to the end, as a slower link or a proxy in between would be hurt by it.

const MB = 1024 * 1024;
const SITE = 'https://chat.firm.example';
const PHOTO_TOO_LARGE = { error: { code: 'PAYLOAD_TOO_LARGE', message: tooLargeMessage('image', UPLOAD_LIMITS.image) } };
const OVER_DECLARED = {
  error: { code: 'PAYLOAD_TOO_LARGE', message: 'More bytes were sent than the upload said it would have (Upload-Length).' },
};
const TUS = { 'tus-resumable': '1.0.0' };
const JPEG = `filetype ${Buffer.from('image/jpeg').toString('base64')},filename ${Buffer.from('scan.jpg').toString('base64')}`;

let server: TTestServer;
let cookie: string;

beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET, NEXT_PUBLIC_SITE_URL: SITE });
  await createUser({ email: 'sam@firm.test', name: 'Sam', role: 'staff', password: 'upload-password' });
  cookie = await sessionCookie(server.url, 'sam@firm.test', 'upload-password');
});
afterAll(() => server?.stop());

/** A multipart body with one file in field `file`, as a browser's FormData sends it. */
function multipart(bytes: number, type = 'image/jpeg') {
  const boundary = '----over-limit-test';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.jpg"\r\nContent-Type: ${type}\r\n\r\n`),
    Buffer.alloc(bytes, 0xff),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** fetch (undici), with a Content-Length, or chunked (a stream: no length); the answer or how it failed. */
async function fetchAnswer(path: string, method: string, headers: Record<string, string>, body: Buffer, chunked: boolean) {
  const stream = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < body.length; at += 64 * 1024) controller.enqueue(new Uint8Array(body.subarray(at, at + 64 * 1024)));
        controller.close();
      },
    });
  try {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers,
      body: chunked ? stream() : new Uint8Array(body),
      duplex: 'half',
    });
    return { status: res.status, json: await res.json() };
  } catch (error) {
    return { failed: String((error as Error & { cause?: Error }).cause ?? error) };
  }
}

/** Both clients, both framings, `times` each: every one must read `status` and `json`, with no reset under the socket client. */
async function expectReadableRefusal(
  request: Omit<TRawUpload, 'url' | 'chunked'> & { method: string },
  status: number,
  json: unknown,
  times = 2,
) {
  for (let i = 0; i < times; i++) {
    for (const chunked of [false, true]) {
      expect(await fetchAnswer(request.path, request.method, request.headers, request.body, chunked)).toEqual({ status, json });
      const raw = await rawUpload({ ...request, url: server.url, chunked });
      expect({
        status: raw.status,
        json: raw.body ? (JSON.parse(raw.body) as unknown) : null,
        error: raw.error,
        sentWhole: raw.sentWhole,
      }).toEqual({
        status,
        json,
        error: null,
        sentWhole: true,
      });
    }
  }
}

describe('POST /api/media', () => {
  const headers = (contentType: string) => ({ cookie, origin: SITE, 'content-type': contentType });

  it('a 6 MB photo is answered 413 with its sentence, at a browser’s pace', async () => {
    const { body, contentType } = multipart(6 * MB);
    await expectReadableRefusal(
      { method: 'POST', path: '/api/media', headers: headers(contentType), body, pieceDelayMs: 2 },
      413,
      PHOTO_TOO_LARGE,
    );
  });

  it('a 40 MB photo at full speed, too', async () => {
    const { body, contentType } = multipart(40 * MB);
    await expectReadableRefusal({ method: 'POST', path: '/api/media', headers: headers(contentType), body }, 413, PHOTO_TOO_LARGE);
  });
});

describe('/api/uploads (tus)', () => {
  it('a photo created with its 6 MB body, and 6 MB sent to an upload that declared 10 bytes, are answered 413 with their sentences', async () => {
    const headers = { ...TUS, cookie, origin: SITE, 'content-type': 'application/offset+octet-stream' };
    const body = Buffer.alloc(6 * MB, 0xff);
    await expectReadableRefusal(
      { method: 'POST', path: '/api/uploads', headers: { ...headers, 'upload-length': String(6 * MB), 'upload-metadata': JPEG }, body },
      413,
      PHOTO_TOO_LARGE,
    );

    const created = await fetch(`${server.url}/api/uploads`, {
      method: 'POST',
      headers: { ...TUS, cookie, origin: SITE, 'upload-length': '10', 'upload-metadata': JPEG },
    });
    expect(created.status).toBe(201);
    const path = new URL(created.headers.get('location')!, server.url).pathname;
    await expectReadableRefusal(
      { method: 'PATCH', path, headers: { ...headers, 'upload-offset': '0' }, body, pieceDelayMs: 1 },
      413,
      OVER_DECLARED,
    );
    // Nothing past the declared length was kept: the upload is where it was.
    const head = await fetch(`${server.url}${path}`, { method: 'HEAD', headers: { ...TUS, cookie, origin: SITE } });
    expect(head.headers.get('upload-offset')).toBe('0');
  });
});

describe('the webhook', () => {
  const TOO_LARGE = { ok: false, error: 'payload_too_large' };
  const signed = (body: Buffer) => ({ 'content-type': 'application/json', 'x-service-signature': `sha256=${sign(body)}` });

  it('a 6 MB delivery is answered 413 payload_too_large; one that says it is over the limit at once, not once all of it is read', async () => {
    const body = Buffer.alloc(6 * MB, 0x20);
    await expectReadableRefusal({ method: 'POST', path: '/api/webhooks/chat', headers: signed(body), body }, 413, TOO_LARGE);

    const answer = await rawUpload({ url: server.url, path: '/api/webhooks/chat', headers: signed(body), body, stopAfterBytes: 64 * 1024 });
    expect({ status: answer.status, json: JSON.parse(answer.body) as unknown, error: answer.error }).toEqual({
      status: 413,
      json: TOO_LARGE,
      error: null,
    });
  });
});

describe('the rest of a refused body is read within bounds', () => {
  let bare: http.Server;
  let url: string;
  beforeAll(async () => {
    // Refuses every body after its first piece, as a route over its limit does; small limits.
    bare = http.createServer((req, res) => {
      req.once('data', () => {
        req.pause();
        drainBeforeClosing(req, res, { maxBytes: 256 * 1024, maxMs: 300 });
        res.statusCode = 413;
        res.setHeader('content-type', 'application/json');
        res.end('{"error":"too large"}');
      });
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => bare?.close(resolve)));

  it('a client that sends the whole body reads the answer, told the connection will close, and is not reset', async () => {
    const answer = await rawUpload({ url, path: '/', headers: {}, body: Buffer.alloc(200 * 1024, 1) });
    expect(answer).toMatchObject({ status: 413, body: '{"error":"too large"}', error: null, sentWhole: true });
    expect(answer.headers).toMatchObject({ connection: 'close', 'content-length': '21' });
  });

  it('past maxBytes more the connection is closed: a body is never read for ever', async () => {
    const answer = await rawUpload({ url, path: '/', headers: {}, body: Buffer.alloc(64 * MB, 1) });
    expect(answer).toMatchObject({ status: 413, body: '{"error":"too large"}', sentWhole: false, closedByServer: true });
  });

  it('a client that stops sending is let go after maxMs', async () => {
    const answer = await rawUpload({
      url,
      path: '/',
      headers: {},
      body: Buffer.alloc(MB, 1),
      stopAfterBytes: 128 * 1024,
      untilClosed: true,
    });
    expect(answer).toMatchObject({ status: 413, body: '{"error":"too large"}', sentWhole: false, closedByServer: true });
  });
});
