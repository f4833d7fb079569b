import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCase } from '../../server/crm/cases';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { sql } from '../support/sql';

// Keyset pages (server/decisions/0011-keyset-pagination.md): inbox.thread backwards in time, timelines newest
// first; no gaps and no repeats across pages, also when records arrive between page loads and when
// many share one timestamp.
let live: TLiveSetup;
let clientId: number;
let caseId: number;
const PHONE = '447700900321';
beforeAll(async () => {
  live = await startLiveSetup();
  clientId = (await createClient({ name: 'Long History', phone: `+${PHONE}` })).id;
  caseId = (await createCase({ clientId, reference: 'LONG-001', title: 'Years of it' })).id;
  // 230 chat records, groups of five sharing one timestamp to the microsecond, and 40 notes between them.
  await sql(
    live.server.databaseUrl,
    `INSERT INTO communications (type, direction, body, status, client_id, case_id, peer_phone, metadata, receipts, created_at, updated_at)
     SELECT 'chat', CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'outbound' END, 'Message ' || g, NULL, $1, CASE WHEN g % 3 = 0 THEN $2::int END, '${PHONE}', '{}', '{}',
            timestamptz '2024-01-01' + (g / 5) * interval '1 hour', now()
     FROM generate_series(1, 230) g`,
    [clientId, caseId],
  );
  await sql(
    live.server.databaseUrl,
    `INSERT INTO communications (type, direction, subject, body, client_id, case_id, metadata, receipts, created_at, updated_at)
     SELECT 'note', NULL, 'Note', 'Note ' || g, $1, $2, '{}', '{}', timestamptz '2024-01-01' + g * interval '6 hours', now()
     FROM generate_series(1, 40) g`,
    [clientId, caseId],
  );
});
afterAll(() => live?.stop());

it('a thread pages backwards without gaps or repeats while messages arrive, each page oldest first', async () => {
  const seen: string[] = [];
  let cursor: string | undefined;
  let page = 0;
  for (;;) {
    const answer = await live.staff.inbox.thread.query({ clientId, cursor, limit: 40 });
    const bodies = answer.items.map((i) => i.body);
    if (page === 0) expect(bodies.at(-1)).toBe('Message 230'); // the newest page first
    expect(answer.items.map((i) => i.createdAt.getTime())).toEqual(
      [...answer.items.map((i) => i.createdAt.getTime())].sort((a, b) => a - b),
    );
    seen.unshift(...bodies);
    // A new message between page loads belongs to the newest page, and shifts nothing here.
    await live.sim.sendInbound(PHONE, `Arrived during page ${page}`);
    page += 1;
    if (!answer.nextCursor) break;
    cursor = answer.nextCursor;
  }
  expect(page).toBe(6); // 230 = 5 pages of 40 and one of 30
  expect(seen).toEqual(Array.from({ length: 230 }, (_, i) => `Message ${i + 1}`));
  const newest = await live.staff.inbox.thread.query({ clientId, limit: 7 });
  expect(newest.items.map((i) => i.body)).toEqual(['Message 230', ...Array.from({ length: 6 }, (_, i) => `Arrived during page ${i}`)]);
});

it('without a page asked for, a thread is its newest page as before', async () => {
  const answer = await live.staff.inbox.thread.query({ clientId });
  expect(answer.items).toHaveLength(236);
  expect(answer.nextCursor).toBeNull();
});

it('timelines page newest first over every record type; a case timeline only its own records', async () => {
  const collect = async (fetchPage: (cursor?: string) => Promise<{ items: { id: number; type: string }[]; nextCursor: string | null }>) => {
    const ids: number[] = [];
    const types = new Set<string>();
    let cursor: string | undefined;
    do {
      const answer = await fetchPage(cursor);
      ids.push(...answer.items.map((i) => i.id));
      for (const item of answer.items) types.add(item.type);
      cursor = answer.nextCursor ?? undefined;
    } while (cursor);
    return { ids, types };
  };
  const client = await collect((cursor) => live.staff.timeline.client.query({ clientId, cursor, limit: 25 }));
  const count = (
    await sql<{ count: number }>(live.server.databaseUrl, 'SELECT count(*)::int AS count FROM communications WHERE client_id = $1', [
      clientId,
    ])
  )[0]!.count;
  expect(client.ids).toHaveLength(count);
  expect(new Set(client.ids).size).toBe(count);
  expect([...client.types].sort()).toEqual(['chat', 'note']);
  const onCase = await collect((cursor) => live.staff.timeline.case.query({ caseId, cursor, limit: 25 }));
  const caseCount = (
    await sql<{ count: number }>(live.server.databaseUrl, 'SELECT count(*)::int AS count FROM communications WHERE case_id = $1', [caseId])
  )[0]!.count;
  expect(onCase.ids).toHaveLength(caseCount);
  expect(new Set(onCase.ids).size).toBe(caseCount);
});

it("an unlinked number's thread pages too", async () => {
  for (let i = 0; i < 7; i++) await live.sim.sendInbound('447700900999', `Stranger ${i}`);
  const first = await live.staff.inbox.thread.query({ phone: '+447700900999', limit: 4 });
  expect(first.items.map((i) => i.body)).toEqual(['Stranger 3', 'Stranger 4', 'Stranger 5', 'Stranger 6']);
  const second = await live.staff.inbox.thread.query({ phone: '+447700900999', limit: 4, cursor: first.nextCursor! });
  expect(second.items.map((i) => i.body)).toEqual(['Stranger 0', 'Stranger 1', 'Stranger 2']);
  expect(second.nextCursor).toBeNull();
});

it('a cursor that is not one of ours is a clear BAD_REQUEST', async () => {
  for (const cursor of [
    'nonsense',
    Buffer.from('["2024-01-01", 1]').toString('base64url'),
    Buffer.from('["x\'; DROP TABLE communications; --", 1]').toString('base64url'),
  ]) {
    await expect(live.staff.inbox.thread.query({ clientId, cursor })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
      message: 'That page position is not valid: reload the list.',
    });
  }
  await expect(live.staff.timeline.client.query({ clientId, cursor: 'nonsense' })).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
  // Shaped right but not a position PostgreSQL could take (the hostile probe's 500s): refused before the query.
  const cursorOf = (value: string, id: number) => Buffer.from(JSON.stringify([value, id])).toString('base64url');
  for (const [value, id] of [
    ['2024-01-01 00:00:00+00', 2147483648],
    ['2024-02-30 00:00:00+00', 1],
    ['2024-13-45 25:61:61+00', 1],
    ['0000-01-01 00:00:00+00', 1],
    ['2024-01-01 00:00:00+99', 1],
    ['2024-01-01 00:00:00+15:99', 1],
  ] as const) {
    await expect(live.staff.inbox.thread.query({ clientId, cursor: cursorOf(value, id) })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
    });
    await expect(live.staff.timeline.case.query({ caseId, cursor: cursorOf(value, id) })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
    });
    await expect(live.staff.inbox.threads.query({ cursor: cursorOf(value, id) })).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
  }
  expect((await live.staff.inbox.thread.query({ clientId, cursor: cursorOf('2020-02-29 23:59:59.999999+05:30', 1) })).items).toEqual([]); // a real moment: a page
  for (const rank of ['1e50', '1e-50', '1'.repeat(140)]) {
    await expect(live.staff.inbox.search.query({ q: 'message', cursor: cursorOf(rank, 1) })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
    });
  }
  // An id no PostgreSQL integer holds is refused by the input check, not by the database.
  await expect(live.staff.inbox.thread.query({ clientId: 2147483648 })).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
  await expect(live.staff.timeline.case.query({ caseId: Number.MAX_SAFE_INTEGER })).rejects.toMatchObject({
    data: { code: 'BAD_REQUEST' },
  });
  // A client that does not exist has no summary either: NOT_FOUND, as for its thread.
  await expect(live.staff.inbox.threadSummary.query({ clientId: 424242 })).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
});

it('the inbox pages by last activity: every conversation once, also when one moves to the top between loads', async () => {
  // 130 unlinked numbers, older than everything above, pairs sharing a timestamp; each unread.
  await sql(
    live.server.databaseUrl,
    `INSERT INTO communications (type, direction, body, status, peer_phone, metadata, receipts, created_at, updated_at)
     SELECT 'chat', 'inbound', 'Hello ' || g, NULL, '4477009' || lpad(g::text, 5, '0'), '{}', '{}', timestamptz '2023-01-01' + (g / 2) * interval '1 minute', now()
     FROM generate_series(1, 130) g`,
  );
  const all = (await sql<{ key: string }>(live.server.databaseUrl, 'SELECT thread_key AS key FROM chat_threads')).map((r) => r.key);
  const seen: string[] = [];
  let cursor: string | undefined;
  let page = 0;
  for (;;) {
    const answer = await live.staff.inbox.threads.query({ cursor, limit: 50 });
    const times = answer.threads.map((t) => t.last.createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    seen.push(...answer.threads.map((t) => t.key));
    // Between the first and second page the oldest conversation (on a page not loaded yet) and one
    // already shown both get a message: neither may appear again further down.
    if (page === 0) {
      await live.sim.sendInbound('447700900001', 'I am back');
      await live.sim.sendInbound(PHONE, 'Me too');
    }
    page += 1;
    if (!answer.nextCursor) break;
    cursor = answer.nextCursor;
  }
  expect(new Set(seen).size).toBe(seen.length);
  // The moved conversation is missed by these pages (the app puts it on top live); everything else is here.
  expect(seen.sort()).toEqual(all.filter((k) => k !== 'phone-447700900001').sort());
  const top = await live.staff.inbox.threads.query({ limit: 2 });
  expect(top.threads.map((t) => t.last.body)).toEqual(['Me too', 'I am back']);
});

it('filtered inbox pages too, and the unread badge counts the whole inbox', async () => {
  const unread = await sql<{ conversations: number; messages: number }>(
    live.server.databaseUrl,
    'SELECT count(*)::int AS conversations, sum(unread)::int AS messages FROM chat_threads WHERE unread > 0',
  );
  expect(unread[0]!.conversations).toBeGreaterThan(130);
  expect(await live.staff.inbox.unreadCount.query()).toEqual(unread[0]);
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const answer = await live.staff.inbox.threads.query({ filter: 'unread', cursor, limit: 40 });
    expect(answer.threads.every((t) => t.unread > 0)).toBe(true);
    keys.push(...answer.threads.map((t) => t.key));
    cursor = answer.nextCursor ?? undefined;
  } while (cursor);
  expect(new Set(keys).size).toBe(unread[0]!.conversations);
  expect(keys).toHaveLength(unread[0]!.conversations);
  await expect(live.staff.inbox.threads.query({ cursor: 'nonsense' })).rejects.toMatchObject({
    data: { code: 'BAD_REQUEST' },
    message: 'That page of conversations is not valid: reload the inbox.',
  });
  // Without a limit a page is 50 (server/README.md "HTTP surfaces").
  expect((await live.staff.inbox.threads.query()).threads).toHaveLength(50);
});
