import { loadConfig } from '../../../server/core/config';
import { openDatabase } from '../../../server/core/db/open-database';
import { foldUnreadRound, readersToFold } from '../../../server/inbox/unread-kept';
import { benchLogger } from '../app-under-test';
import { createDatabase, query, reportP95, type TBenchTools } from '../bench-support';
import { benchCaller, type TBenchCaller } from './bench-caller';
import { explainCall } from './explain-call';
import { seedUnread, UNREAD_PEOPLE, type TUnreadPerson } from './unread-seed';

// Part 15, unread per person (server/inbox/README.md "Unread"): on a database of the bench's scale,
// five people whose reading differs — everything read, nothing since their marks were set, half, half
// and walled from cases, a new account — each asking the badge (`inbox.unreadCount`) and the unread
// filter's first page through the real procedures. The people take turns call by call, so the
// machine's noise falls on all alike. EXPLAIN ANALYZE printed for a miss.

const TARGET_MS = 20;
const WARM_UP = 20;
/** Conversations that receive a message between two rounds of the poller (two seconds at 250 deliveries a second). */
const PENDING = 500;

type TProbe = { name: string; run: (caller: TBenchCaller) => Promise<unknown> };
const PROBES: TProbe[] = [
  { name: 'inbox.unreadCount', run: (c) => c.inbox.unreadCount() },
  { name: 'inbox.threads filter unread (first page)', run: (c) => c.inbox.threads({ filter: 'unread' }) },
];

export async function benchUnread(adminUrl: string, tools: TBenchTools): Promise<void> {
  const { scale } = tools;
  console.log(
    `\n== 15. Unread per person: ${scale.clients} clients, ${scale.communications} communications, ${UNREAD_PEOPLE.length} people, ${scale.calls} calls each`,
  );
  const url = await createDatabase(adminUrl, 'bench_unread');
  const database = await openDatabase(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'warn' }), benchLogger);
  try {
    const t0 = performance.now();
    const seed = await seedUnread(url, scale);
    // What the server's poller does after a start: every reader's counts kept (server/inbox/README.md "The badge, kept").
    const t1 = performance.now();
    for (let round = 0; round < 5 && (await readersToFold(1)).length > 0; round++) await foldUnreadRound();
    tools.report({
      part: 'unread',
      name: 'every reader’s unread counted and kept (the first rounds after a start)',
      value: (performance.now() - t1) / 1000,
      unit: 's',
    });
    const callers = new Map(UNREAD_PEOPLE.map((who) => [who, benchCaller(url, seed.people[who])] as const));
    const badges = new Map<TUnreadPerson, { conversations: number; messages: number }>();
    for (const who of UNREAD_PEOPLE) badges.set(who, await callers.get(who)!.inbox.unreadCount());
    tools.report({
      part: 'unread',
      name:
        `seeded (${seed.conversations} conversations, ${seed.later} records after the marks were set; unread conversations: ` +
        UNREAD_PEOPLE.map((who) => `${who} ${badges.get(who)!.conversations}`).join(', ') +
        ')',
      value: (performance.now() - t0) / 1000,
      unit: 's',
    });
    for (const probe of PROBES) {
      const times = await timeInTurns(callers, probe, scale.calls);
      for (const who of UNREAD_PEOPLE) {
        const p95 = reportP95(
          tools,
          'unread',
          `${probe.name}, ${who} (${badges.get(who)!.conversations} unread)`,
          times.get(who)!,
          TARGET_MS,
        );
        if (p95 > TARGET_MS)
          console.log(`EXPLAIN ANALYZE, ${who} — ${await explainCall(database.sequelize, () => probe.run(callers.get(who)!))}`);
      }
    }
    // Every person's badge agrees with their own marks (the part measures the right thing, not just fast).
    const [check] = await query<{ behind: number }>(
      url,
      `SELECT count(*)::int AS behind FROM chat_threads t LEFT JOIN read_marks m ON m.user_id = $1 AND m.thread_key = t.thread_key
       WHERE t.inbound > coalesce(m.read_count, 0)`,
      [seed.people.behind.id],
    );
    if (check!.behind !== badges.get('behind')!.conversations)
      throw new Error(`the behind person's badge (${badges.get('behind')!.conversations}) is not their marks' (${check!.behind})`);
    // Between two rounds of the poller: the badge corrects what arrived since the last (its cost follows that, not the firm's size).
    await query(
      url,
      `INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata)
       SELECT 'chat', 'inbound', 'arrived since the last round', t.client_id, l.peer_phone, '{}'
       FROM (SELECT * FROM chat_threads ORDER BY thread_key LIMIT ${PENDING}) t JOIN communications l ON l.id = t.last_id`,
    );
    const pending = await timeInTurns(callers, PROBES[0]!, scale.calls);
    for (const who of UNREAD_PEOPLE)
      reportP95(
        tools,
        'unread',
        `inbox.unreadCount with ${PENDING} conversations changed since the last round, ${who}`,
        pending.get(who)!,
        TARGET_MS,
      );
  } finally {
    await database.close();
  }
}

/** Each round, every person once, the order turning by one each round; each person's times sorted. */
async function timeInTurns(callers: Map<TUnreadPerson, TBenchCaller>, probe: TProbe, calls: number): Promise<Map<TUnreadPerson, number[]>> {
  const times = new Map<TUnreadPerson, number[]>(UNREAD_PEOPLE.map((who) => [who, []]));
  for (let round = -WARM_UP; round < calls; round++) {
    for (let i = 0; i < UNREAD_PEOPLE.length; i++) {
      const who = UNREAD_PEOPLE[(i + Math.max(round, 0)) % UNREAD_PEOPLE.length]!;
      const t = performance.now();
      await probe.run(callers.get(who)!);
      if (round >= 0) times.get(who)!.push(performance.now() - t);
    }
  }
  for (const list of times.values()) list.sort((a, b) => a - b);
  return times;
}
