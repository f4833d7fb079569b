import { afterAll, beforeAll, expect, it } from 'vitest';
import { User } from '../../server/core/db/models/index';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';

// Every outbound record says which member of staff sent it (server/decisions/0012-append-only-audit-trail.md).
let live: TLiveSetup;
let clientId: number;
let staffId: number;
let directorId: number;
beforeAll(async () => {
  live = await startLiveSetup();
  clientId = (await createClient({ name: 'Amelia Hart', phone: '+447700900123' })).id;
  staffId = (await User.findOne({ where: { email: 'sam@firm.test' } }))!.id;
  directorId = (await User.findOne({ where: { email: 'dee@firm.test' } }))!.id;
  live.sim.markInbound('447700900123');
});
afterAll(() => live?.stop());

it('a message, a template and a test message each record who sent them, and the thread says so', async () => {
  const text = await live.staff.chat.send.mutate({ clientId, body: 'Your bundle is ready' });
  const template = await live.director.chat.sendTemplate.mutate({ clientId, name: 'hello_world', language: 'en_US', params: [] });
  const test = await live.director.settings.sendTest.mutate({ to: '+447700900123', body: 'Test from Settings' });
  expect(text.sentBy).toEqual({ id: staffId, name: 'Sam Staff' });
  expect(template.sentBy).toEqual({ id: directorId, name: 'Dee Director' });
  expect(test.sentBy).toEqual({ id: directorId, name: 'Dee Director' });
  const thread = await live.staff.inbox.thread.query({ clientId });
  expect(thread.items.filter((i) => i.direction === 'outbound').map((i) => i.sentBy?.name)).toEqual([
    'Sam Staff',
    'Dee Director',
    'Dee Director',
  ]);
  const timeline = await live.staff.timeline.client.query({ clientId });
  expect(timeline.items.find((i) => i.id === text.id)?.sentBy).toEqual({ id: staffId, name: 'Sam Staff' });
});

it('a retry is sent by whoever retries it; the failed attempt keeps its own sender', async () => {
  live.sim.queueResponse({ status: 429 });
  await expect(live.staff.chat.send.mutate({ clientId, body: 'Try me' })).rejects.toThrow();
  const failed = (await live.staff.inbox.thread.query({ clientId })).items.find((i) => i.body === 'Try me' && i.status === 'failed')!;
  expect(failed.sentBy?.name).toBe('Sam Staff');
  const retried = await live.director.chat.retry.mutate({ id: failed.id });
  expect(retried.sentBy).toEqual({ id: directorId, name: 'Dee Director' });
});

it("inbound messages and echoes from the firm's phone have no sender", async () => {
  const inbound = await live.sim.sendInboundKind({ kind: 'text', from: '447700900123', body: 'Thanks' });
  const echo = await live.sim.sendInboundKind({ kind: 'echo', to: '447700900123', body: 'Called from the office phone' });
  const thread = await live.staff.inbox.thread.query({ clientId });
  expect(thread.items.find((i) => i.metadata.chat_msg_id === inbound.id)?.sentBy).toBeNull();
  expect(thread.items.find((i) => i.metadata.chat_msg_id === echo.id)).toMatchObject({
    direction: 'outbound',
    sentBy: null,
    metadata: { echo: true },
  });
});
