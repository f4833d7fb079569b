import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../server/core/logger';
import { captureLogLines } from '../support/log-capture';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, textMessage, VERIFY_TOKEN, WEBHOOK_SECRET } from '../support/webhook';
import { match } from '../support/matchers';

const { lines, destination } = captureLogLines();

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer(
    { MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET, MESSAGING_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN },
    createLogger('debug', destination),
  );
  await createUser({ email: 'sam@firm.test', name: 'Sam', role: 'staff', password: 'staff-password-xyz' });
});
afterAll(() => server?.stop());

it('logs one line per request with method, full path, status and time, and no body, query, cookie or secret', async () => {
  await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.log-1', '447700900123', 'PRIVILEGED-BODY-TEXT')] }), {
    query: '?token=query-secret-value',
    unsigned: true,
  });
  await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.log-2', '447700900123', 'PRIVILEGED-BODY-TEXT')] }));
  await fetch(`${server.url}/api/webhooks/chat?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=42`);
  const { client, jar } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password-xyz' });
  await client.clients.list.query();

  const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
  expect(requests).toContainEqual(match.objectContaining({ method: 'POST', path: '/api/webhooks/chat', status: 200 }));
  expect(requests).toContainEqual(match.objectContaining({ method: 'POST', path: '/api/webhooks/chat', status: 401 }));
  expect(requests).toContainEqual(match.objectContaining({ method: 'GET', path: '/api/webhooks/chat', status: 200 }));
  expect(requests).toContainEqual(match.objectContaining({ method: 'POST', path: '/trpc/auth.signIn', status: 200 }));
  for (const r of requests) expect(typeof r.ms).toBe('number');

  const all = lines.join('\n');
  for (const secret of [
    'PRIVILEGED-BODY-TEXT',
    'query-secret-value',
    VERIFY_TOKEN,
    WEBHOOK_SECRET,
    'staff-password-xyz',
    jar.get('firm_chat_session')!,
    '447700900123',
  ]) {
    expect(all).not.toContain(secret);
  }
});
