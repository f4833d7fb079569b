import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createUser } from '../../server/auth/users';
import { queryRows } from '../../server/core/sql';
import type { TViewer } from '../../server/core/visibility';
import { countUnreadInFull } from '../../server/inbox/count-unread';
import { threadsPageQuery } from '../../server/inbox/list-threads';
import { countUnreadKept, foldUnread, readersToFold } from '../../server/inbox/unread-kept';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// The badge, kept (server/inbox/README.md "The badge, kept"): each reader's kept counts, corrected by
// what was stamped since their snapshot and by what the walls touch for them, always equal the badge
// counted in full — through deliveries, openings, walls put up and taken down, relinks and a delivery
// that commits while the counts are being brought up to date.

type TClient = ReturnType<typeof createHttpClient>['client'];
type TPerson = { client: TClient; id: number; role: 'director' | 'staff' };
let server: TTestServer;
let people: TPerson[];
let msg = 0;

async function person(email: string, role: 'director' | 'staff'): Promise<TPerson> {
  const user = await createUser({ email, name: email.split('@')[0]!, role, password: 'kept-password-1' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email, password: 'kept-password-1' });
  return { client, id: user.id, role };
}

async function deliver(from: string): Promise<void> {
  const id = `wamid.kept-${++msg}`;
  const answer = await postWebhook(
    server.url,
    cloudPayload({ messages: [textMessage(id, from, `message ${msg}`, String(Math.floor(Date.now() / 1000)))] }),
  );
  expect(answer.status).toBe(200);
}

const unreadListed = async (viewer: TViewer, unreadFromKept: boolean) =>
  (await queryRows<{ id: number; unread: number }>(threadsPageQuery(viewer, { filter: 'unread', limit: 500, unreadFromKept }))).map((r) => [
    r.id,
    r.unread,
  ]);

/** Brings a reader's counts up to date now: the server folds them too, every 2 s, and one fold gives way to another (false). */
const foldNow = (id: number) => vi.waitFor(async () => expect(await foldUnread(id)).toBe(true), { timeout: 20_000, interval: 50 });

/** Every reader's kept badge (when they have one in force) equals the badge counted in full. */
async function expectKeptMatchesFull(step: string): Promise<number> {
  let kept = 0;
  for (const p of people) {
    const viewer = { id: p.id, role: p.role };
    const [fromKept, inFull] = [await countUnreadKept(viewer), await countUnreadInFull(viewer)];
    if (fromKept) kept++;
    expect(fromKept ?? inFull, `${step}: reader ${p.id}`).toEqual(inFull);
    // The unread filter started from the kept counts lists what walking the inbox lists.
    if (fromKept)
      expect(await unreadListed(viewer, true), `${step}: reader ${p.id}'s unread filter`).toEqual(await unreadListed(viewer, false));
  }
  return kept;
}

/** A small generator of the same choices every run (the failure names its step). */
function choices(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  people = [await person('dee@kept.test', 'director'), await person('ann@kept.test', 'staff'), await person('bob@kept.test', 'staff')];
});
afterAll(async () => {
  await server?.close();
});

it('equals the badge counted in full through deliveries, openings, walls and relinks, whenever the counts are brought up to date', async () => {
  const dee = people[0]!;
  const clients = [];
  for (const [i, name] of ['Kept One', 'Kept Two', 'Kept Three'].entries())
    clients.push(await dee.client.clients.create.mutate({ name, phone: `+4477009670${i}1` }));
  const walledCase = await dee.client.cases.create.mutate({ clientId: clients[1]!.id, reference: 'KEPT/1', title: 'Walled' });
  const numbers = ['447700967001', '447700967011', '447700967021', '447700967091', '447700967092'];
  const pick = choices(46);
  let keptSeen = 0;
  for (let step = 0; step < 50; step++) {
    const who = people[pick(people.length)]!;
    const op = pick(9);
    let did: string;
    if (op <= 2) {
      const number = numbers[pick(numbers.length)]!;
      await deliver(number);
      did = `delivery from ${number}`;
    } else if (op === 3) {
      const c = clients[pick(clients.length)]!;
      // A client walled from them is NOT_FOUND to them: nothing moves.
      const opened = await who.client.inbox.markRead.mutate({ clientId: c.id }).then(
        () => 'opened',
        (error: Error) => (error.message === 'Client not found.' ? 'was refused' : Promise.reject(error)),
      );
      did = `${who.id} ${opened} client ${c.id}`;
    } else if (op === 4) {
      await who.client.inbox.markRead.mutate({ phone: `+${numbers[3 + pick(2)]}` });
      did = `${who.id} opened an unknown number`;
    } else if (op === 5) {
      // A screen from a client, put up or taken down.
      const c = clients[pick(2)]!;
      const screened = await sql(
        server.databaseUrl,
        `SELECT 1 FROM access_screens WHERE subject_type = 'client' AND subject_id = $1 AND user_id = $2`,
        [c.id, people[1]!.id],
      );
      if (screened.length) await dee.client.access.unscreen.mutate({ clientId: c.id, userId: people[1]!.id });
      else await dee.client.access.screen.mutate({ clientId: c.id, userId: people[1]!.id, reason: 'kept counts probe' });
      did = `screen toggled on client ${c.id}`;
    } else if (op === 6) {
      // Messages filed on a case walled from Bob (his screen from it), some of them newer than his mark.
      await sql(
        server.databaseUrl,
        `UPDATE communications SET case_id = $1 WHERE client_id = $2 AND direction = 'inbound' AND id % 2 = 0`,
        [walledCase.id, clients[1]!.id],
      );
      const screened = await sql(server.databaseUrl, `SELECT 1 FROM access_screens WHERE subject_type = 'case' AND subject_id = $1`, [
        walledCase.id,
      ]);
      if (!screened.length)
        await dee.client.access.screen.mutate({ caseId: walledCase.id, userId: people[2]!.id, reason: 'kept counts probe' });
      did = 'messages filed on a walled case';
    } else if (op === 7) {
      // A relink: an unknown number's conversation joins a client's (its summary row removed).
      const number = numbers[3 + pick(2)]!;
      const linked = await sql(server.databaseUrl, `SELECT 1 FROM client_numbers WHERE digits = $1`, [number]);
      if (linked.length) await dee.client.inbox.unlink.mutate({ phone: `+${number}`, clientId: clients[2]!.id });
      else await dee.client.inbox.link.mutate({ phone: `+${number}`, clientId: clients[2]!.id, confirm: true });
      did = `${number} ${linked.length ? 'unlinked' : 'linked'}`;
    } else {
      await foldUnread(who.id);
      did = `${who.id}'s counts brought up to date`;
    }
    if (pick(3) === 0) for (const p of people) await foldUnread(p.id);
    keptSeen += await expectKeptMatchesFull(`step ${step} (${did})`);
  }
  // The comparison was mostly of kept counts, not of the fallback with itself.
  expect(keptSeen).toBeGreaterThan(50);
});

it('counts a delivery that commits after the snapshot it was made during, whatever its record id', async () => {
  const [dee, ann] = people as [TPerson, TPerson];
  const client = await dee.client.clients.create.mutate({ name: 'Late Commit', phone: '+447700967501' });
  await deliver('447700967501');
  for (const p of people) await foldUnread(p.id);
  // A delivery's transaction takes its record id, then stays open while the counts are brought up to date.
  const late = new pg.Client({ connectionString: server.databaseUrl });
  await late.connect();
  try {
    await late.query('BEGIN');
    await late.query(
      `INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata) VALUES ('chat', 'inbound', 'late', $1, '447700967501', '{}')`,
      [client.id],
    );
    await deliver('447700967001'); // a later id, committed first
    await foldNow(ann.id);
    await late.query('COMMIT');
  } finally {
    await late.end();
  }
  const viewer = { id: ann.id, role: ann.role };
  expect(await countUnreadKept(viewer)).toEqual(await countUnreadInFull(viewer));
  await foldNow(ann.id);
  expect(await countUnreadKept(viewer)).toEqual(await countUnreadInFull(viewer));
});

it('a first count made while a relink commits still leaves the relinked conversation out once it is in', async () => {
  const dee = people[0]!;
  // A reader the server's own rounds leave alone (they fold active people only), with no counts yet: this
  // test makes their first count, at the moment it chooses.
  const newcomer = await createUser({ email: 'cy@kept.test', name: 'cy', role: 'staff', password: 'kept-password-1' });
  await sql(server.databaseUrl, 'UPDATE users SET deactivated_at = now() WHERE id = $1', [newcomer.id]);
  await sql(server.databaseUrl, 'DELETE FROM derived.unread_totals WHERE user_id = $1', [newcomer.id]);
  await sql(server.databaseUrl, 'DELETE FROM derived.unread_snap WHERE user_id = $1', [newcomer.id]);
  const client = await dee.client.clients.create.mutate({ name: 'Relinked Meanwhile', phone: '+447700967601' });
  await deliver('447700967602'); // an unknown number's conversation, unread for everyone
  const viewer = { id: newcomer.id, role: newcomer.role };
  // The relink's transaction removes the number's conversation (its summary row) and stays open while the
  // newcomer's counts are made for the first time: their snapshot still holds the number's conversation.
  const relink = new pg.Client({ connectionString: server.databaseUrl });
  await relink.connect();
  try {
    await relink.query('BEGIN');
    await relink.query(`UPDATE communications SET client_id = $1 WHERE peer_phone = '447700967602'`, [client.id]);
    expect(await foldUnread(newcomer.id)).toBe(true);
    await relink.query('COMMIT');
  } finally {
    await relink.end();
  }
  expect(await countUnreadKept(viewer)).toEqual(await countUnreadInFull(viewer));
  // And once the counts are brought up past the relink (the log no longer names it for them): twice, as a
  // round of the server's running meanwhile can hold the first count's snapshot back from passing it.
  await foldNow(newcomer.id);
  await foldNow(newcomer.id);
  expect(await countUnreadKept(viewer)).toEqual(await countUnreadInFull(viewer));
});

it('the server keeps every reader’s counts in force by itself, and a badge read through the API is the full count', async () => {
  await deliver('447700967001');
  await deliver('447700967091');
  await vi.waitFor(async () => expect(await readersToFold(100)).toEqual([]), { timeout: 20_000, interval: 100 });
  // What every reader's counts have taken in is forgotten: the log holds only what is newer.
  await vi.waitFor(async () => expect(await sql(server.databaseUrl, 'SELECT 1 FROM derived.unread_changes')).toEqual([]), {
    timeout: 20_000,
    interval: 100,
  });
  for (const p of people) {
    const viewer = { id: p.id, role: p.role };
    expect(await countUnreadKept(viewer)).not.toBeNull();
    expect(await p.client.inbox.unreadCount.query()).toEqual(await countUnreadInFull(viewer));
  }
});
