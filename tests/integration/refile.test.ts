import { afterAll, beforeAll, expect, it } from 'vitest';
import { Communication } from '../../server/core/db/models/index';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { sql } from '../support/sql';

// A person corrects where messages were filed: several at once, to one of the client's cases or
// to none, all or nothing, and the trail says where each came from.

let live: TLiveSetup;
afterAll(() => live?.stop());
beforeAll(async () => {
  live = await startLiveSetup();
});

const record = (clientId: number, caseId: number | null, body: string) =>
  Communication.create({ type: 'chat', direction: 'inbound', body, clientId, caseId, peerPhone: '447700900801', metadata: {} });

it('moves several records to another case in one go, audited with where each was; a foreign id or case moves nothing', async () => {
  const client = await live.staff.clients.create.mutate({ name: 'Refile Client', phone: '+44 7700 900801' });
  const other = await live.staff.clients.create.mutate({ name: 'Other Client', phone: '+44 7700 900802' });
  const caseA = await live.staff.cases.create.mutate({ clientId: client.id, reference: 'RF-A', title: 'Sale' });
  const caseB = await live.staff.cases.create.mutate({ clientId: client.id, reference: 'RF-B', title: 'Lease' });
  const foreignCase = await live.staff.cases.create.mutate({ clientId: other.id, reference: 'RF-X', title: 'Not theirs' });
  const [one, two, three] = [
    await record(client.id, caseA.id, 'one'),
    await record(client.id, null, 'two'),
    await record(client.id, caseA.id, 'three'),
  ];
  const foreign = await record(other.id, null, 'not this client');

  expect(await live.staff.timeline.refile.mutate({ clientId: client.id, ids: [one.id, two.id], caseId: caseB.id })).toEqual({ moved: 2 });
  const onB = await live.staff.timeline.case.query({ caseId: caseB.id });
  expect(onB.items.map((i) => i.body).sort()).toEqual(['one', 'two']);
  const [event] = await sql<{ user_id: number; subject: string; detail: unknown }>(
    live.server.databaseUrl,
    `SELECT user_id, subject, detail FROM audit_events WHERE action = 'communication.refile'`,
  );
  expect(event).toMatchObject({
    subject: `client:${client.id}`,
    detail: {
      caseId: caseB.id,
      records: [
        { id: one.id, fromCaseId: caseA.id },
        { id: two.id, fromCaseId: null },
      ],
    },
  });

  await expect(
    live.staff.timeline.refile.mutate({ clientId: client.id, ids: [three.id, foreign.id], caseId: caseB.id }),
  ).rejects.toMatchObject({
    data: { code: 'NOT_FOUND' },
  });
  await expect(live.staff.timeline.refile.mutate({ clientId: client.id, ids: [three.id], caseId: foreignCase.id })).rejects.toMatchObject({
    data: { code: 'BAD_REQUEST' },
  });
  expect((await Communication.findByPk(three.id))?.caseId).toBe(caseA.id);
  expect((await Communication.findByPk(foreign.id))?.caseId).toBeNull();

  expect(await live.staff.timeline.refile.mutate({ clientId: client.id, ids: [three.id], caseId: null })).toEqual({ moved: 1 });
  expect((await Communication.findByPk(three.id))?.caseId).toBeNull();
});
