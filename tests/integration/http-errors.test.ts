import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TTestServer } from '../support/test-server';

// Every plain HTTP route a browser uses answers an error in one shape, `{error: {code, message}}`,
// with tRPC's code word for its status (server/README.md "HTTP surfaces"); the webhook keeps the provider's.
let server: TTestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

const CODE_OF_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

it.each([
  ['a file, signed out', 'GET', '/api/media/1', {}, 401],
  ['an upload, signed out', 'POST', '/api/media', {}, 401],
  ['an upload from another site', 'POST', '/api/media', { origin: 'https://elsewhere.example' }, 403],
  ['an export, signed out', 'GET', '/api/export/client/1.pdf', {}, 401],
  ['a resumable upload, signed out', 'POST', '/api/uploads', {}, 401],
  ['a resumable upload from another site', 'PATCH', '/api/uploads/0123', { origin: 'https://elsewhere.example' }, 403],
  ['an unknown API path', 'GET', '/api/nothing-here', {}, 404],
  ['a POST to a page', 'POST', '/clients', {}, 404],
  ['a method the server never answers', 'PUT', '/api/health', {}, 405],
  ['a tRPC call that is not JSON', 'POST', '/trpc/auth.signOut', { 'content-type': 'text/plain' }, 415],
  ['a tRPC path that is not valid percent-encoding', 'GET', '/trpc/inbox.threads%E0', {}, 400],
])('%s (%s %s) answers in the one error shape', async (_what, method, path, headers, status) => {
  const res = await fetch(`${server.url}${path}`, { method, headers });
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
  expect(body).toEqual({ error: { code: CODE_OF_STATUS[status], message: expect.any(String) as string } });
  expect((body.error!.message as string).length).toBeGreaterThan(10);
});
