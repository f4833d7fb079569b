import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';

// Inbox filters (client/README.md "A tour of the screens"): all, unread, unknown or ambiguous number, awaiting our reply.
let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
  const amelia = await createClient({ name: 'Amelia Hart', phone: '+447700900123' });
  await createClient({ name: 'Benedict Okafor', phone: '+447700900456' });
  await live.sim.sendInboundKind({ kind: 'text', from: '447700900123', body: 'Any news?' }); // unread, awaiting reply
  await live.sim.sendInboundKind({ kind: 'text', from: '447700900456', body: 'Thanks for the call' });
  await live.staff.inbox.markRead.mutate({ clientId: (await live.staff.clients.list.query({ search: 'Benedict' }))[0]!.id }); // read, awaiting reply
  await live.sim.sendInboundKind({ kind: 'text', from: '447700900999', body: 'Who do I speak to?' }); // unknown number
  await live.staff.chat.send.mutate({ clientId: amelia.id, body: 'Not yet — Friday.' }); // Amelia: we replied last, still unread
});
afterAll(() => live?.stop());

const names = async (filter?: 'all' | 'unread' | 'unlinked' | 'awaiting_reply') =>
  (await live.staff.inbox.threads.query(filter ? { filter } : {})).threads.map((t) => t.clientName ?? t.phone).sort();

it('all, unread, unlinked and awaiting our reply each list the right conversations', async () => {
  expect(await names()).toEqual(['447700900999', 'Amelia Hart', 'Benedict Okafor']);
  expect(await names('all')).toEqual(['447700900999', 'Amelia Hart', 'Benedict Okafor']);
  expect(await names('unread')).toEqual(['447700900999', 'Amelia Hart']);
  expect(await names('unlinked')).toEqual(['447700900999']);
  expect(await names('awaiting_reply')).toEqual(['447700900999', 'Benedict Okafor']);
});

it('refuses a filter it does not know', async () => {
  await expect(live.staff.inbox.threads.query({ filter: 'starred' as never })).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
});
