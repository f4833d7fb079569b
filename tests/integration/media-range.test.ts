import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHUNK_BYTES, PostgresMediaStore } from '../../server/media/media-store';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';

// A player seeks, a download resumes: both ask for part of a file with `Range`.

let server: TTestServer;
let cookie: string;
// Four chunks and a bit: ranges inside one chunk, across a boundary and at the end.
const FILE = randomBytes(4 * CHUNK_BYTES + 1000);
const SIZE = FILE.length;
let id: number;
let sha256: string;

beforeAll(async () => {
  server = await startTestServer();
  await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
  const { client, jar } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(FILE)], { type: 'application/pdf' }), 'Bundle.pdf');
  const uploaded = await fetch(`${server.url}/api/media`, { method: 'POST', body: form, headers: { cookie } });
  expect(uploaded.status).toBe(200);
  id = ((await uploaded.json()) as { attachmentId: number }).attachmentId;
  const head = await fetch(`${server.url}/api/media/${id}`, { headers: { cookie } });
  sha256 = head.headers.get('etag')!.replaceAll('"', '');
  await head.arrayBuffer();
});
afterAll(() => server?.stop());

const get = (headers: Record<string, string> = {}) => fetch(`${server.url}/api/media/${id}`, { headers: { cookie, ...headers } });
const bodyOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

function expectSafeHeaders(res: Response) {
  expect(res.headers.get('accept-ranges')).toBe('bytes');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="?Bundle\.pdf"?$/);
  expect(res.headers.get('cache-control')).toMatch(/^private/);
}

describe('GET /api/media/:id with Range', () => {
  it('without Range: the whole file, 200, saying ranges are accepted', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expectSafeHeaders(res);
    expect(res.headers.get('content-length')).toBe(String(SIZE));
    expect((await bodyOf(res)).equals(FILE)).toBe(true);
  });

  it.each([
    ['the first bytes', 'bytes=0-99', 0, 99],
    ['one byte', 'bytes=0-0', 0, 0],
    ['across a chunk boundary', `bytes=${CHUNK_BYTES - 10}-${CHUNK_BYTES + 9}`, CHUNK_BYTES - 10, CHUNK_BYTES + 9],
    ['across every chunk', `bytes=5-${SIZE - 5}`, 5, SIZE - 5],
    ['from an offset to the end', `bytes=${3 * CHUNK_BYTES + 17}-`, 3 * CHUNK_BYTES + 17, SIZE - 1],
    ['the last bytes', 'bytes=-1000', SIZE - 1000, SIZE - 1],
    ['a last byte past the end (cut to the end)', `bytes=${SIZE - 10}-${SIZE + 500}`, SIZE - 10, SIZE - 1],
    ['more last bytes than the file has (the whole file)', `bytes=-${SIZE + 10}`, 0, SIZE - 1],
    ['overlapping ranges (one range)', 'bytes=0-10,5-20', 0, 20],
  ])('%s: 206 with Content-Range and only those bytes', async (_what, range, start, end) => {
    const res = await get({ range });
    expect(res.status).toBe(206);
    expectSafeHeaders(res);
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${SIZE}`);
    expect(res.headers.get('content-length')).toBe(String(end - start + 1));
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect((await bodyOf(res)).equals(FILE.subarray(start, end + 1))).toBe(true);
  });

  it.each([`bytes=${SIZE}-`, `bytes=${SIZE + 100}-${SIZE + 200}`, 'bytes=-0'])(
    '%s cannot be satisfied: 416 with bytes */size',
    async (range) => {
      const res = await get({ range });
      expect(res.status).toBe(416);
      expectSafeHeaders(res);
      expect(res.headers.get('content-range')).toBe(`bytes */${SIZE}`);
      expect((await bodyOf(res)).length).toBe(0);
    },
  );

  it.each([
    ['several ranges', 'bytes=0-1,100-101'],
    ['a malformed header', 'bytes=abc'],
    ['another unit', 'items=0-1'],
  ])('%s: the whole file, 200', async (_what, range) => {
    const res = await get({ range });
    expect(res.status).toBe(200);
    expectSafeHeaders(res);
    expect(res.headers.get('content-range')).toBeNull();
    expect((await bodyOf(res)).equals(FILE)).toBe(true);
  });

  it('If-Range: the range only while the file is the one the reader has', async () => {
    const same = await get({ range: 'bytes=0-9', 'if-range': `"${sha256}"` });
    expect(same.status).toBe(206);
    expect((await bodyOf(same)).equals(FILE.subarray(0, 10))).toBe(true);
    const other = await get({ range: 'bytes=0-9', 'if-range': '"something-else"' });
    expect(other.status).toBe(200);
    expect((await bodyOf(other)).length).toBe(SIZE);
  });

  it('signed out is still 401, unknown still 404, whatever the Range', async () => {
    expect((await fetch(`${server.url}/api/media/${id}`, { headers: { range: 'bytes=0-1' } })).status).toBe(401);
    expect((await fetch(`${server.url}/api/media/999999`, { headers: { cookie, range: 'bytes=0-1' } })).status).toBe(404);
  });
});

describe('the store reads only the bytes asked for', () => {
  it('a range inside the last chunk fetches those bytes, not the chunks before nor the rest of that one', async () => {
    const sequelize = server.database.sequelize;
    const store = new PostgresMediaStore();
    const query = vi.spyOn(sequelize, 'query');
    try {
      const pieces: Buffer[] = [];
      for await (const piece of store.read(id, { start: 4 * CHUNK_BYTES + 10, end: 4 * CHUNK_BYTES + 19 })) pieces.push(piece as Buffer);
      expect(Buffer.concat(pieces).equals(FILE.subarray(4 * CHUNK_BYTES + 10, 4 * CHUNK_BYTES + 20))).toBe(true);
      // What PostgreSQL sent back to the store: the bytes of every row of every query it made.
      const fetched = await Promise.all<unknown>(query.mock.results.map((r) => r.value as Promise<unknown>));
      const bytes = fetched
        .flatMap((rows) => (Array.isArray(rows) ? (rows as object[]) : []))
        .flatMap((row) => Object.values(row) as unknown[])
        .filter((value): value is Buffer => Buffer.isBuffer(value))
        .reduce((sum, value) => sum + value.length, 0);
      expect(bytes).toBe(10);
    } finally {
      query.mockRestore();
    }
  });
});
