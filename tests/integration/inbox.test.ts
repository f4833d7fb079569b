import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { createUser } from '../../server/auth/users';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, statusItem, textMessage, WEBHOOK_SECRET } from '../support/webhook';

let server: TTestServer;
let staff: ReturnType<typeof createHttpClient>['client'];
let amelia: { id: number };
let daniel: { id: number };

beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  await createUser({ email: 'sam@firm.test', name: 'Sam', role: 'staff', password: 'staff-password' });
  staff = createHttpClient(server.url).client;
  await staff.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  amelia = await createClient({ name: 'Amelia Hart', phone: '+44 7700 900123' });
  daniel = await createClient({ name: 'Daniel Reyes', phone: '+44 7700 900555' });
  await createClient({ name: 'Daniela Reyes', phone: '+353 77 0090 0555' });
  await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.i1', '447700900123', 'first from Amelia', '1763700000')] }));
  await staff.chat.send.mutate({ clientId: amelia.id, body: 'reply to Amelia' });
  await postWebhook(
    server.url,
    cloudPayload({
      contacts: [{ profile: { name: 'Dan R' }, wa_id: '33700900555' }],
      messages: [textMessage('wamid.i2', '33700900555', 'which Reyes?', '1763700100')],
    }),
  );
  await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.i3', '447700900123', 'second from Amelia', '1763700200')] }));
});
afterAll(() => server?.stop());

describe('inbox', () => {
  it('lists one thread per client and per unlinked number, newest activity first, with unread counts and match state', async () => {
    const { threads } = await staff.inbox.threads.query();
    expect(threads.map((t) => t.key)).toEqual([`client-${amelia.id}`, 'phone-33700900555']);
    const [ameliaThread, unknown] = threads;
    expect(ameliaThread).toMatchObject({
      clientName: 'Amelia Hart',
      unread: 2,
      match: 'linked',
      last: { body: 'second from Amelia', direction: 'inbound' },
    });
    expect(ameliaThread?.lastInboundAt?.toISOString()).toBe('2025-11-21T04:43:20.000Z');
    expect(unknown).toMatchObject({ clientId: null, contactName: 'Dan R', match: 'ambiguous', unread: 1 });
    expect(unknown?.candidates.map((c) => c.name)).toEqual(['Daniel Reyes', 'Daniela Reyes']);
  });

  it('returns a thread oldest first with receipt history, and marks it read', async () => {
    const sent = (await staff.inbox.thread.query({ clientId: amelia.id })).items.find((i) => i.direction === 'outbound')!;
    await postWebhook(server.url, cloudPayload({ statuses: [statusItem(sent.metadata.chat_msg_id!, 'delivered', '1763700300')] }));
    const { items } = await staff.inbox.thread.query({ clientId: amelia.id });
    expect(items.map((i) => i.body)).toEqual(['first from Amelia', 'reply to Amelia', 'second from Amelia']);
    expect(items[1]?.receipts).toEqual([{ status: 'delivered', at: new Date('2025-11-21T04:45:00.000Z') }]);
    expect(await staff.inbox.markRead.mutate({ clientId: amelia.id })).toEqual({ updated: 2 });
    expect((await staff.inbox.threads.query()).threads.find((t) => t.clientId === amelia.id)?.unread).toBe(0);
  });

  it('links an ambiguous number to the client a person chose, moving its records', async () => {
    expect(await staff.inbox.link.mutate({ phone: '33700900555', clientId: daniel.id })).toEqual({ linked: 1 });
    const { threads } = await staff.inbox.threads.query();
    expect(threads.find((t) => t.key === 'phone-33700900555')).toBeUndefined();
    expect(threads.find((t) => t.clientId === daniel.id)?.last.body).toBe('which Reyes?');
    expect((await staff.timeline.client.query({ clientId: daniel.id })).items.map((i) => i.body)).toEqual(['which Reyes?']);
  });

  it('refuses anonymous callers', async () => {
    await expect(createHttpClient(server.url).client.inbox.threads.query()).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
  });
});
