import pg from 'pg';
import superjson, { type SuperJSONResult } from 'superjson';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { notifyOverdueConversations } from '../../server/ownership/conversation-timers';
import { startAppProcess } from '../support/app-process';
import { SIM_API_KEY } from '../support/live-setup';
import { isConnected, openLiveStream, type TFrame, type TLiveStream } from '../support/live-stream';
import { match } from '../support/matchers';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// Ownership's promises (server/ownership/README.md "Ownership"), each where it can break: people acting at once, two
// instances polling one database, a poll run over and over, live streams under the walls, bad input,
// notes that must never reach the provider, and notifications that are only their own person's.
// Real HTTP, a real second instance, real PostgreSQL; the provider is the simulator over HTTP.

const SESSION_SECRET = 'ownership-promises-session-secret-0123';
const ENV = {
  SESSION_SECRET,
  MESSAGING_API_KEY: SIM_API_KEY,
  MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET,
};

type TClient = ReturnType<typeof createHttpClient>['client'];
type TPerson = { client: TClient; id: number; cookie: string };

let sim: ProviderSimulator;
let server: TTestServer;
let dee: TPerson; // director
let sam: TPerson;
let ann: TPerson;
let bea: TPerson;
let zed: TPerson; // screened from some clients below
let noa: TPerson; // only ever mentioned: her notifications are the test's own
let goneId = 0;
let phones = 0;

async function signIn(baseUrl: string, email: string): Promise<{ client: TClient; cookie: string }> {
  const { client, jar } = createHttpClient(baseUrl);
  await client.auth.signIn.mutate({ email, password: 'promises-password-1' });
  return { client, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
}

async function person(email: string, name: string, role: 'staff' | 'director' = 'staff'): Promise<TPerson> {
  const user = await createUser({ email, name, role, password: 'promises-password-1' });
  return { ...(await signIn(server.url, email)), id: user.id };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { message: string; data?: { code?: string } }) => ({ code: error.data?.code, message: error.message }),
  );

let wamid = 0;
/** The client's phone writes to the firm through the webhook (as the provider delivers it). */
async function inbound(digits: string, body: string, baseUrl = server.url) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const res = await postWebhook(baseUrl, cloudPayload({ messages: [textMessage(`wamid.promise-${++wamid}`, digits, body, timestamp)] }));
  expect(res.status).toBe(200);
}

/** A new client whose conversation has begun (one inbound message); its id and number. */
async function conversationWith(name: string): Promise<{ clientId: number; digits: string }> {
  const digits = `4477009557${String(++phones).padStart(2, '0')}`;
  const { id } = await dee.client.clients.create.mutate({ name, phone: `+${digits}` });
  await inbound(digits, `Hello, this is ${name}`);
  return { clientId: id, digits };
}

/** Everything a refused request could have changed about one client's conversation (a walled attempt's own trace aside). */
async function stateOf(clientId: number) {
  const [row] = await sql(
    server.databaseUrl,
    `SELECT (SELECT to_jsonb(s) FROM conversation_states s WHERE s.thread_key = $2) AS conversation,
            (SELECT count(*)::int FROM communications WHERE client_id = $1) AS records,
            (SELECT count(*)::int FROM notifications WHERE thread_key = $2) AS notifications,
            (SELECT count(*)::int FROM audit_events WHERE subject = $3 AND action <> 'access.denied') AS audited,
            (SELECT responsible_user_id FROM clients WHERE id = $1) AS responsible`,
    [clientId, `client-${clientId}`, `client:${clientId}`],
  );
  return row;
}

/** The refusal of `request` (null if it was not refused), checking it changed nothing of the client's. */
async function refusedWithoutChange(clientId: number, request: () => Promise<unknown>) {
  const before = await stateOf(clientId);
  const refused = await refusal(request());
  expect(await stateOf(clientId)).toEqual(before);
  return refused;
}

/** Makes the clients' records `hours` older, and their conversations' kept summaries (chat_threads) with them. */
async function age(clientIds: number[], hours: number) {
  await sql(
    server.databaseUrl,
    `UPDATE communications SET created_at = created_at - make_interval(hours => $2::int) WHERE client_id = ANY($1::int[])`,
    [clientIds, hours],
  );
  await sql(server.databaseUrl, `SELECT chat_threads_recompute('client-' || id) FROM unnest($1::int[]) AS id`, [clientIds]);
}

// A live frame's change, as tRPC's client reads it.
const changeOf = (frame: TFrame) =>
  frame.event === undefined && frame.data
    ? superjson.deserialize<{ items?: { id: number }[]; notifications?: true; ownership?: true; resync?: true }>(
        JSON.parse(frame.data) as SuperJSONResult,
      )
    : null;
const carries = (recordId: number) => (frame: TFrame) => changeOf(frame)?.items?.some((item) => item.id === recordId) === true;
const isNotifications = (frame: TFrame) => changeOf(frame)?.notifications === true;
const isOwnership = (frame: TFrame) => changeOf(frame)?.ownership === true;

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: SIM_API_KEY, webhookSecret: WEBHOOK_SECRET, autoReceipts: false });
  server = await startTestServer({ ...ENV, MESSAGING_PROVIDER_URL: sim.url });
  dee = await person('dee@promises.test', 'Dee Director', 'director');
  sam = await person('sam@promises.test', 'Sam Staff');
  ann = await person('ann@promises.test', 'Ann Other');
  bea = await person('bea@promises.test', 'Bea Fourth');
  zed = await person('zed@promises.test', 'Zed Walled');
  noa = await person('noa@promises.test', 'Noa Notes');
  goneId = (await person('gone@promises.test', 'Gwen Gone')).id;
  await dee.client.users.deactivate.mutate({ userId: goneId });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await sim?.close();
});

it('two people assigning one conversation at once: the last write wins and the trail is a chain of what each really replaced', async () => {
  const { clientId } = await conversationWith('Cora Race');
  // Each round both choose someone other than the one who has it, and other than each other.
  const pairs = [
    [sam.id, ann.id],
    [dee.id, bea.id],
  ] as const;
  const rounds = 10;
  for (let round = 0; round < rounds; round++) {
    const [x, y] = pairs[round % 2]!;
    const answers = await Promise.all([
      sam.client.inbox.assign.mutate({ clientId, userId: x }),
      ann.client.inbox.assign.mutate({ clientId, userId: y }),
    ]);
    expect(answers.map((a) => a.assignee?.id)).toEqual([x, y]);
    expect([x, y]).toContain((await dee.client.inbox.threadSummary.query({ clientId }))?.assignee?.id);
  }
  const trail = (
    await sql<{ detail: { from: number | null; to: number | null } }>(
      server.databaseUrl,
      `SELECT detail FROM audit_events WHERE action = 'inbox.assign' AND subject = $1 ORDER BY id`,
      [`client:${clientId}`],
    )
  ).map((row) => row.detail);
  // Both changes of every round, each from what the other had just written.
  expect(trail).toHaveLength(rounds * 2);
  expect(trail.map((change) => change.from)).toEqual([null, ...trail.slice(0, -1).map((change) => change.to)]);
  for (let round = 0; round < rounds; round++)
    expect(trail.slice(round * 2, round * 2 + 2).map((change) => change.to)).toEqual(expect.arrayContaining([...pairs[round % 2]!]));
  // The last write is what the conversation has.
  const last = trail.at(-1)!.to;
  expect((await dee.client.inbox.threadSummary.query({ clientId }))?.assignee?.id).toBe(last);
  const [row] = await sql<{ assignee_id: number }>(
    server.databaseUrl,
    'SELECT assignee_id FROM conversation_states WHERE thread_key = $1',
    [`client-${clientId}`],
  );
  expect(row?.assignee_id).toBe(last);
});

it('a snooze ends exactly once with two instances polling one database, even when both take it up at the same moment', async () => {
  const other = await startAppProcess({ env: { ...ENV, DATABASE_URL: server.databaseUrl, MESSAGING_PROVIDER_URL: sim.url } });
  const lock = new pg.Client({ connectionString: server.databaseUrl });
  await lock.connect();
  try {
    const samThere = (await signIn(other.url, 'sam@promises.test')).client;
    const instances = [sam.client, samThere];
    const conversations = [];
    for (let i = 0; i < 6; i++) conversations.push((await conversationWith(`Snoozer ${i}`)).clientId);
    const natural = conversations.slice(0, 3);
    const forced = conversations.slice(3);
    const stateOfEach = (clientIds: number[]) =>
      Promise.all(clientIds.map(async (clientId) => (await sam.client.inbox.threadSummary.query({ clientId }))?.state));
    // Snoozed for an hour through either instance; their time is then brought by moving it into the
    // past, not waited for (a loaded machine can take longer than any short snooze to answer the setState).
    const snoozeForAnHour = (clientIds: number[]) =>
      Promise.all(
        clientIds.map((clientId, i) =>
          instances[i % 2]!.inbox.setState.mutate({ clientId, state: 'snoozed', snoozeUntil: new Date(Date.now() + 3_600_000) }),
        ),
      );
    const bringTheirTime = (clientIds: number[]) =>
      sql(server.databaseUrl, "UPDATE conversation_states SET snoozed_until = now() - interval '1 minute' WHERE thread_key = ANY($1)", [
        clientIds.map((clientId) => `client-${clientId}`),
      ]);

    // As it happens: both instances poll for them.
    await snoozeForAnHour(natural);
    expect(await stateOfEach(natural)).toEqual(natural.map(() => 'snoozed'));
    await bringTheirTime(natural);
    await expect.poll(() => stateOfEach(natural), { timeout: 15_000 }).toEqual(natural.map(() => 'open'));

    // Both instances made to take them up at the same moment: while the audit trail is locked, each
    // instance's next round waits for it (they cannot even begin their statement); the snoozes are
    // then brought to their end, and both rounds are let go together.
    await snoozeForAnHour(forced);
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE audit_events IN EXCLUSIVE MODE');
    await bringTheirTime(forced);
    const waitingRounds = async () =>
      (
        await sql<{ n: number }>(
          server.databaseUrl,
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
             AND query LIKE '%state = ''snoozed'' AND snoozed_until <= now()%'`,
        )
      )[0]!.n;
    // One round at a time per instance: two waiting rounds are the two instances.
    await expect.poll(waitingRounds, { timeout: 15_000 }).toBe(2);
    await lock.query('COMMIT');
    await expect.poll(() => stateOfEach(forced), { timeout: 15_000 }).toEqual(forced.map(() => 'open'));

    const ended = await sql<{ subject: string; user_id: number | null; detail: { from: string; to: string } }>(
      server.databaseUrl,
      `SELECT subject, user_id, detail FROM audit_events WHERE action = 'inbox.state' AND subject = ANY($1) ORDER BY id`,
      [conversations.map((clientId) => `client:${clientId}`)],
    );
    for (const clientId of conversations) {
      const byTheSystem = ended.filter((row) => row.subject === `client:${clientId}` && row.user_id === null);
      expect(
        byTheSystem.map((row) => [row.detail.from, row.detail.to]),
        `client ${clientId}`,
      ).toEqual([['snoozed', 'open']]);
    }
  } finally {
    await lock.end();
    await other.stop();
  }
}, 240_000);

it('tells an overdue conversation’s assignee once however often the poll runs at once; the firm’s reply lets the next wait be told, once', async () => {
  const { minutes } = await dee.client.inbox.replyTarget.query();
  const hours = Math.ceil(minutes / 60) + 1; // past the target
  const o1 = await conversationWith('Olive Overdue'); // assigned, waiting past the target
  const o2 = await conversationWith('Otto Unassigned'); // waiting past the target, nobody's
  const r1 = await conversationWith('Rita Recent'); // assigned, waiting a moment only
  const f1 = await conversationWith('Fred Answered'); // assigned, the firm replied last
  const d1 = await conversationWith('Dora Done'); // assigned, waiting past the target, but done
  for (const c of [o1, r1, f1, d1]) await dee.client.inbox.assign.mutate({ clientId: c.clientId, userId: ann.id });
  await sam.client.chat.send.mutate({ clientId: f1.clientId, body: 'We have your papers.' });
  await sam.client.inbox.setState.mutate({ clientId: d1.clientId, state: 'done' });
  await age([o1.clientId, o2.clientId, f1.clientId, d1.clientId], hours);

  const overdueNotes = async () =>
    sql<{ user_id: number; thread_key: string; communication_id: number }>(
      server.databaseUrl,
      `SELECT user_id, thread_key, communication_id FROM notifications WHERE kind = 'overdue' ORDER BY id`,
    );
  const listedOverdue = async () => (await sam.client.inbox.threads.query({ filter: 'overdue' })).threads.map((t) => t.clientId).sort();
  const flagOf = async (clientId: number) => (await sam.client.inbox.threadSummary.query({ clientId }))?.overdue;
  const pollAtOnce = async () =>
    (await Promise.all(Array.from({ length: 6 }, () => notifyOverdueConversations(minutes)))).reduce((a, b) => a + b);

  expect(await listedOverdue()).toEqual([o1.clientId, o2.clientId].sort());
  expect(await Promise.all([o1, o2, r1, f1].map((c) => flagOf(c.clientId)))).toEqual([true, true, false, false]);

  const [lastOfO1] = await sql<{ last_id: number }>(server.databaseUrl, 'SELECT last_id FROM chat_threads WHERE thread_key = $1', [
    `client-${o1.clientId}`,
  ]);
  expect(await pollAtOnce()).toBeLessThanOrEqual(1); // the server's own poll may have told it already
  await pollAtOnce();
  const once = [{ user_id: ann.id, thread_key: `client-${o1.clientId}`, communication_id: lastOfO1!.last_id }];
  expect(await overdueNotes()).toEqual(once);
  expect((await ann.client.notifications.list.query()).items[0]).toMatchObject({
    kind: 'overdue',
    threadRef: { clientId: o1.clientId },
    threadName: 'Olive Overdue',
    readAt: null,
  });

  // The firm replies: the wait is over (not overdue), and nobody is told again while it stays over.
  await sam.client.chat.send.mutate({ clientId: o1.clientId, body: 'Sorry for the wait: on it now.' });
  const [mark] = await sql<{ overdue_notified_at: Date | null }>(
    server.databaseUrl,
    'SELECT overdue_notified_at FROM conversation_states WHERE thread_key = $1',
    [`client-${o1.clientId}`],
  );
  expect(mark?.overdue_notified_at).toBeNull();
  expect(await flagOf(o1.clientId)).toBe(false);
  expect(await listedOverdue()).toEqual([o2.clientId]);
  await pollAtOnce();
  expect(await overdueNotes()).toEqual(once);

  // The client writes again and that wait, too, runs past the target: told again, once.
  await inbound(o1.digits, 'Any news?');
  await age([o1.clientId], hours);
  expect(await listedOverdue()).toEqual([o1.clientId, o2.clientId].sort());
  expect(await flagOf(o1.clientId)).toBe(true);
  const [lastAgain] = await sql<{ last_id: number }>(server.databaseUrl, 'SELECT last_id FROM chat_threads WHERE thread_key = $1', [
    `client-${o1.clientId}`,
  ]);
  await pollAtOnce();
  await pollAtOnce();
  expect(await overdueNotes()).toEqual([
    ...once,
    { user_id: ann.id, thread_key: `client-${o1.clientId}`, communication_id: lastAgain!.last_id },
  ]);
});

it('live: a mention tells only its person, an assignment tells every stream, and a note behind a wall never reaches the walled stream', async () => {
  const open = await conversationWith('Lia Live');
  const walled = await conversationWith('Wes Wall');
  const annStream: TLiveStream = await openLiveStream(server.url, ann.cookie);
  const zedStream: TLiveStream = await openLiveStream(server.url, zed.cookie);
  try {
    await Promise.all([annStream.waitFor(isConnected), zedStream.waitFor(isConnected)]);

    const note = await sam.client.chat.addNote.mutate({ clientId: open.clientId, body: 'Called her — @Ann Other please draft the letter' });
    expect(note.mentions).toEqual([ann.id]);
    await annStream.waitFor(isNotifications);
    await Promise.all([annStream.waitFor(carries(note.id)), zedStream.waitFor(carries(note.id))]);

    // Every stream hears that a conversation changed hands; nobody's but the new assignee's hears of a notification.
    const [annFrom, zedFrom] = [annStream.frames.length, zedStream.frames.length];
    await sam.client.inbox.assign.mutate({ clientId: open.clientId, userId: bea.id });
    await Promise.all([annStream.waitFor(isOwnership, 5_000, annFrom), zedStream.waitFor(isOwnership, 5_000, zedFrom)]);
    // Signals reach a stream in the order they were committed: the mention's came before the assignment's.
    expect(zedStream.frames.filter(isNotifications)).toEqual([]);
    expect(annStream.frames.filter(isNotifications)).toHaveLength(1);

    // Zed is screened from Wes Wall's client: a note there reaches Ann's stream, never Zed's.
    await dee.client.access.screen.mutate({ clientId: walled.clientId, userId: zed.id, reason: 'Acts for the other side' });
    const secret = await sam.client.chat.addNote.mutate({ clientId: walled.clientId, body: 'Secret-marker: settle at 40k' });
    const after = await sam.client.chat.addNote.mutate({ clientId: open.clientId, body: 'Sentinel-marker' });
    await annStream.waitFor(carries(secret.id));
    // The records reach a stream in the order they were stored: once Zed has the later note, the secret one had its turn.
    await zedStream.waitFor(carries(after.id));
    expect(zedStream.frames.filter(carries(secret.id))).toEqual([]);
    expect(zedStream.frames.filter((frame) => frame.data?.includes('Secret-marker'))).toEqual([]);
  } finally {
    annStream.close();
    zedStream.close();
  }
});

it('refuses bad input with a sentence, changing nothing; a walled reader is told NOT_FOUND exactly as for no such client', async () => {
  const { clientId } = await conversationWith('Bao Bad');
  const screened = await conversationWith('Sia Screened');
  await dee.client.access.screen.mutate({ clientId: screened.clientId, userId: zed.id, reason: 'Was on the other side' });

  const refused = (request: () => Promise<unknown>) => refusedWithoutChange(clientId, request);
  const refusedThere = (request: () => Promise<unknown>) => refusedWithoutChange(screened.clientId, request);
  const badRequest = (sentence: string) => ({ code: 'BAD_REQUEST', message: sentence });

  // Assigning to someone who cannot have it.
  expect(await refused(() => sam.client.inbox.assign.mutate({ clientId, userId: goneId }))).toEqual(
    badRequest('Gwen Gone is no longer active. They cannot be assigned this conversation.'),
  );
  expect(await refused(() => sam.client.inbox.assign.mutate({ clientId, userId: 999_999 }))).toEqual(
    badRequest('That person does not exist. They cannot be assigned this conversation.'),
  );
  expect(await refusedThere(() => sam.client.inbox.assign.mutate({ clientId: screened.clientId, userId: zed.id }))).toEqual(
    badRequest('Zed Walled cannot see this client (an ethical wall). They cannot be assigned this conversation.'),
  );
  expect(await refusedThere(() => sam.client.clients.setResponsible.mutate({ clientId: screened.clientId, userId: zed.id }))).toEqual(
    badRequest('Zed Walled cannot see this client (an ethical wall). They cannot be responsible for this client.'),
  );

  // Snoozing to no time, a past one, or more than a year ahead.
  const snooze = (snoozeUntil: Date | undefined) => () => sam.client.inbox.setState.mutate({ clientId, state: 'snoozed', snoozeUntil });
  expect(await refused(snooze(new Date(Date.now() - 60_000)))).toEqual(badRequest('A snooze must end in the future: pick a later time.'));
  expect(await refused(snooze(undefined))).toEqual(badRequest('Say until when to snooze the conversation.'));
  expect(await refused(snooze(new Date(Date.now() + 367 * 24 * 3_600_000)))).toEqual(
    badRequest('A conversation can be snoozed for a year at most.'),
  );

  // Notes: too long, or empty.
  const note =
    (body: string, mentions?: number[], on = clientId) =>
    () =>
      sam.client.chat.addNote.mutate({ clientId: on, body, mentions });
  expect(await refused(note('x'.repeat(4_097)))).toEqual(badRequest('body: A note can be 4,096 characters at most.'));
  for (const empty of ['', '   \n\t  ']) expect(await refused(note(empty))).toEqual(badRequest('Write the note first.'));
  const longest = await sam.client.chat.addNote.mutate({ clientId, body: 'y'.repeat(4_096) });
  expect(
    (await sql<{ n: number }>(server.databaseUrl, 'SELECT length(body) AS n FROM communications WHERE id = $1', [longest.id]))[0]?.n,
  ).toBe(4_096);

  // A note mentioning someone walled from the client, by the @ completion's id or by name in the text.
  const walledMention = badRequest(
    'Zed Walled cannot see this client (an ethical wall). Remove the mention, or ask a director about access.',
  );
  expect(await refusedThere(note('Please look', [zed.id], screened.clientId))).toEqual(walledMention);
  expect(await refusedThere(note('Please look, @Zed Walled', undefined, screened.clientId))).toEqual(walledMention);
  expect(await refusedThere(note('@Ann Other and @zed walled: see this', [ann.id], screened.clientId))).toEqual(walledMention);

  // Walled from the client, Zed is told exactly what he would be told of a client that does not exist.
  const asZed = (on: number) => [
    () => zed.client.inbox.assign.mutate({ clientId: on, userId: zed.id }),
    () => zed.client.inbox.setState.mutate({ clientId: on, state: 'done' }),
    () => zed.client.chat.addNote.mutate({ clientId: on, body: 'Mine now' }),
    () => zed.client.inbox.people.query({ clientId: on }),
  ];
  const missing = await Promise.all(asZed(999_999).map((request) => refusal(request())));
  expect(missing).toEqual(Array.from({ length: 4 }, () => ({ code: 'NOT_FOUND', message: 'Client not found.' })));
  for (const request of asZed(screened.clientId)) expect(await refusedThere(request)).toEqual(missing[0]);
});

it('never sends a note: the provider hears nothing of it, and it is neither unread, nor a reply, nor a search hit', async () => {
  const waiting = await conversationWith('Nia Notes');
  await inbound(waiting.digits, 'The wombatplan is attached');
  const answered = await conversationWith('Nat Answered');
  await sam.client.chat.send.mutate({ clientId: answered.clientId, body: 'Thank you, received.' });
  const awaiting = async () => (await sam.client.inbox.threads.query({ filter: 'awaiting_reply' })).threads.map((t) => t.clientId);
  const summaryOf = async (clientId: number) => {
    const summary = await sam.client.inbox.threadSummary.query({ clientId });
    return { unread: summary?.unread, last: summary?.last.id, overdue: summary?.overdue };
  };
  const before = {
    requests: sim.requests.length,
    unread: await sam.client.inbox.unreadCount.query(),
    waiting: await summaryOf(waiting.clientId),
    answered: await summaryOf(answered.clientId),
  };
  expect(await awaiting()).toContain(waiting.clientId);
  expect(await awaiting()).not.toContain(answered.clientId);

  const notes = [
    await sam.client.chat.addNote.mutate({ clientId: waiting.clientId, body: 'Quokkaplan: the wombatplan needs a signature' }),
    await sam.client.chat.addNote.mutate({ clientId: answered.clientId, body: 'Quokkaplan follows next week' }),
  ];
  expect(sim.requests.slice(before.requests)).toEqual([]);
  expect(
    await sql(server.databaseUrl, 'SELECT id, type, direction, status FROM communications WHERE id = ANY($1) ORDER BY id', [
      notes.map((n) => n.id),
    ]),
  ).toEqual(notes.map((n) => ({ id: n.id, type: 'chat_note', direction: null, status: null })));

  // Not the client writing, not the firm's reply, not unread.
  expect(await sam.client.inbox.unreadCount.query()).toEqual(before.unread);
  expect(await summaryOf(waiting.clientId)).toEqual(before.waiting);
  expect(await summaryOf(answered.clientId)).toEqual(before.answered);
  expect(await awaiting()).toContain(waiting.clientId);
  expect(await awaiting()).not.toContain(answered.clientId);

  // Search finds the client's words, never a note's.
  expect((await sam.client.inbox.search.query({ q: 'quokkaplan' })).items).toEqual([]);
  expect((await sam.client.inbox.search.query({ q: 'wombatplan' })).items.map((hit) => hit.id)).toEqual([before.waiting.last]);

  // The provider is listening all along: a real send reaches it, alone, with its own words.
  await sam.client.chat.send.mutate({ clientId: waiting.clientId, body: 'Signed copy to follow.' });
  expect(sim.requests.slice(before.requests).map((r) => (r.body as { text?: { body?: string } }).text?.body)).toEqual([
    'Signed copy to follow.',
  ]);
});

it('notifications: marking read touches only the caller’s own; all marks all; the count follows; pages follow their cursors', async () => {
  const { clientId } = await conversationWith('Pia Pages');
  const mentions: number[] = [];
  for (let i = 0; i < 35; i++) mentions.push((await sam.client.chat.addNote.mutate({ clientId, body: `@Noa Notes point ${i}` })).id);
  for (let i = 0; i < 3; i++) await sam.client.chat.addNote.mutate({ clientId, body: `@Ann Other point ${i}` });
  const idsOf = async (userId: number) =>
    (
      await sql<{ id: string }>(
        server.databaseUrl,
        `SELECT id FROM notifications WHERE user_id = $1 AND thread_key = $2 ORDER BY id DESC`,
        [userId, `client-${clientId}`],
      )
    ).map((row) => Number(row.id));
  const noaIds = await idsOf(noa.id);
  const annIds = await idsOf(ann.id);
  expect(noaIds).toHaveLength(35);
  expect(annIds).toHaveLength(3);
  expect(await noa.client.notifications.unreadCount.query()).toEqual({ count: 35 });
  const annUnread = (await ann.client.notifications.unreadCount.query()).count;

  // Pages: the default of 30 then the rest, and pages of 10; newest first, none twice, none left out.
  const first = await noa.client.notifications.list.query();
  expect(first.items).toHaveLength(30);
  expect(first.nextCursor).toEqual(match.any(String));
  const second = await noa.client.notifications.list.query({ cursor: first.nextCursor! });
  expect(second).toMatchObject({ nextCursor: null });
  expect([...first.items, ...second.items].map((n) => n.id)).toEqual(noaIds);
  expect([...first.items, ...second.items].map((n) => n.communicationId)).toEqual([...mentions].reverse());
  const paged: number[][] = [];
  let cursor: string | undefined;
  do {
    const page = await noa.client.notifications.list.query({ limit: 10, cursor });
    paged.push(page.items.map((n) => n.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(paged.map((page) => page.length)).toEqual([10, 10, 10, 5]);
  expect(paged.flat()).toEqual(noaIds);

  // Another person's ids are not the caller's to mark.
  expect(await noa.client.notifications.markRead.mutate({ ids: annIds })).toEqual({ updated: 0 });
  expect(await noa.client.notifications.markRead.mutate({ ids: [...noaIds.slice(0, 3), ...annIds] })).toEqual({ updated: 3 });
  expect(await noa.client.notifications.markRead.mutate({ ids: noaIds.slice(0, 3) })).toEqual({ updated: 0 }); // read already
  expect(await noa.client.notifications.unreadCount.query()).toEqual({ count: 32 });
  expect(await ann.client.notifications.unreadCount.query()).toEqual({ count: annUnread });
  const annRead = await sql(server.databaseUrl, 'SELECT id FROM notifications WHERE id = ANY($1) AND read_at IS NOT NULL', [annIds]);
  expect(annRead).toEqual([]);

  expect(await noa.client.notifications.markRead.mutate({ all: true })).toEqual({ updated: 32 });
  expect(await noa.client.notifications.unreadCount.query()).toEqual({ count: 0 });
  expect(await ann.client.notifications.unreadCount.query()).toEqual({ count: annUnread });
  const everyPage = [...(await noa.client.notifications.list.query({ limit: 100 })).items];
  expect(everyPage.filter((n) => n.readAt === null)).toEqual([]);
  expect(await noa.client.notifications.markRead.mutate({ all: true })).toEqual({ updated: 0 });
});

// A person screened from a client (server/access/README.md "Ethical walls") must get nothing of it through ownership
// either: neither its conversation nor a live hint that something happened in it.

it('a client’s responsible person walled from it since is not given its first conversation, nor told of it', async () => {
  const digits = '447700955890';
  const { id: clientId } = await dee.client.clients.create.mutate({ name: 'Rae Responsible', phone: `+${digits}` });
  await sam.client.clients.setResponsible.mutate({ clientId, userId: zed.id });
  await dee.client.access.screen.mutate({ clientId, userId: zed.id, reason: 'Conflict found after intake' });
  const elsewhere = await conversationWith('Sol Sentinel');
  const stream = await openLiveStream(server.url, zed.cookie);
  try {
    await stream.waitFor(isConnected);
    await inbound(digits, 'My first message to the firm');
    // Signals reach a stream in the order they were committed: once Zed hears of a later assignment, he has heard all before it.
    const from = stream.frames.length;
    await sam.client.inbox.assign.mutate({ clientId: elsewhere.clientId, userId: bea.id });
    await stream.waitFor(isOwnership, 5_000, from);
    expect((await sam.client.inbox.threadSummary.query({ clientId }))?.assignee?.id).not.toBe(zed.id);
    expect(stream.frames.filter(isNotifications)).toEqual([]);
  } finally {
    stream.close();
  }
});

it('an assignee walled from the client since is not told live of its new messages', async () => {
  const held = await conversationWith('Tess Told');
  await dee.client.inbox.assign.mutate({ clientId: held.clientId, userId: zed.id });
  await dee.client.access.screen.mutate({ clientId: held.clientId, userId: zed.id, reason: 'Now acts for the other side' });
  const elsewhere = await conversationWith('Sid Sentinel');
  const unread = await zed.client.notifications.unreadCount.query();
  const stream = await openLiveStream(server.url, zed.cookie);
  try {
    await stream.waitFor(isConnected);
    await inbound(held.digits, 'Is anyone there?');
    const from = stream.frames.length;
    await sam.client.inbox.assign.mutate({ clientId: elsewhere.clientId, userId: bea.id });
    await stream.waitFor(isOwnership, 5_000, from);
    expect(await zed.client.notifications.unreadCount.query()).toEqual(unread); // nothing he may see
    expect(stream.frames.filter(isNotifications)).toEqual([]); // so nothing to be told of
  } finally {
    stream.close();
  }
});
