import { afterAll, beforeAll, expect, it } from 'vitest';
import { Communication } from '../../server/core/db/models/index';
import { createClient } from '../../server/crm/clients';
import { createUser } from '../../server/auth/users';
import { startAppProcess, type TAppProcess } from '../support/app-process';
import { isConnected, openLiveStream } from '../support/live-stream';
import { startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, statusItem, textMessage, WEBHOOK_SECRET } from '../support/webhook';
import { sessionCookie } from '../support/session-cookie';

// Instance A runs in this process, instance B in its own process; one PostgreSQL between them.
let a: TTestServer;
let b: TAppProcess;

beforeAll(async () => {
  a = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  b = await startAppProcess({ env: { DATABASE_URL: a.databaseUrl, MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET } });
  await createUser({ email: 'sam@firm.test', name: 'Sam', role: 'staff', password: 'staff-password' });
  await createClient({ name: 'Amelia Hart', phone: '+44 7700 900123' });
}, 180_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const signIn = (baseUrl: string) => sessionCookie(baseUrl, 'sam@firm.test', 'staff-password');

it('a message delivered to instance A reaches a live subscription (SSE) on instance B', async () => {
  const cookie = await signIn(b.url);
  const stream = await openLiveStream(b.url, cookie);
  try {
    expect(stream.res.statusCode).toBe(200);
    expect(stream.res.headers['content-type']).toMatch(/text\/event-stream/);
    await stream.waitFor(isConnected);
    expect(
      (await postWebhook(a.url, cloudPayload({ messages: [textMessage('wamid.two-1', '447700900123', 'hello through instance A')] })))
        .status,
    ).toBe(200);
    await stream.waitFor((frame) => frame.data?.includes('hello through instance A') === true, 10_000);
  } finally {
    stream.close();
  }
}, 30_000);

it('concurrent receipts through both instances still end monotonic', async () => {
  for (let round = 0; round < 3; round++) {
    const id = `wamid.two-out-${round}`;
    const record = await Communication.create({
      type: 'chat',
      direction: 'outbound',
      status: 'sent',
      body: 'x',
      clientId: null,
      peerPhone: '447700900123',
      metadata: { chat_msg_id: id },
    });
    const statuses = ['read', 'delivered', 'sent', 'delivered', 'read', 'sent'];
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        postWebhook(i % 2 ? b.url : a.url, cloudPayload({ statuses: [statusItem(id, statuses[i % statuses.length]!)] })),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const stored = await Communication.findByPk(record.id);
    expect(stored?.status).toBe('read');
    expect(Object.keys(stored!.receipts).sort()).toEqual(['delivered', 'read', 'sent']);
  }
}, 30_000);
