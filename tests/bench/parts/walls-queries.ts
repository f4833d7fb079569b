import type { Sequelize } from 'sequelize';
import { bySize, percentile, query, type TBenchTools } from '../bench-support';
import { foldUnread } from '../../../server/inbox/unread-kept';
import { benchCaller, type TBenchCaller } from './bench-caller';
import { explainCall } from './explain-call';
import { COMMON, pick, SECOND } from './search-words';
import { addWallReaders, seedCaseData, seedWalls, WALLED_MEMBERSHIPS, type TWallReaders } from './walls-seed';

/** Both readers' unread counted and kept, as the server's poller keeps them (server/inbox/README.md "The badge, kept"). */
async function keepReadersUnread(readers: TWallReaders): Promise<void> {
  for (const reader of [readers.walled, readers.unwalled]) await foldUnread(reader.id);
}

// The ethical walls' cost on the read paths, after the queries part's own rows and on its data.
// Each procedure is measured three ways in one run: for the unwalled reader BEFORE any wall exists
// (the baseline: the same records, cases and people, only no wall), then, once the walls are
// seeded, for the walled reader and the unwalled reader with their calls interleaved (same moment,
// same inputs, so machine noise falls on both alike). Two rows per procedure: walled vs before
// walls (the whole cost of the walls to that person), and walled vs unwalled after the walls (the
// cost of being on walls, given that walls exist). Both: ≤ 1.2× and ≤ 20 ms.

const MAX_RATIO = 1.2;
const MAX_MS = 20;
const PAGE = 50; // as the SPA asks
const WARM_UP = 20;

type TRun = (input: string) => Promise<unknown>;
/** A procedure as the SPA calls it: `prepare` finds what the reader needs first (a cursor), `input` draws a fresh argument per call. */
type TWallQuery = { name: string; input: () => string; prepare: (caller: TBenchCaller) => TRun | Promise<TRun> };

export async function benchWallQueries(url: string, sequelize: Sequelize, tools: TBenchTools): Promise<void> {
  const { scale } = tools;
  const screens = bySize(tools.size, { full: 200, quick: 10, smoke: 4 });
  console.log(
    `\n-- Ethical walls: ${scale.clients / 100} restricted clients with 5–20 members each, ${screens} screens; a reader on ${WALLED_MEMBERSHIPS} walls and screened from 4 subjects vs a reader on none; ${scale.calls} calls each`,
  );
  const [{ id: longClientId }] = (await query(url, "SELECT id FROM clients WHERE name = 'Long History'")) as [{ id: number }];
  const t0 = performance.now();
  const readers = await addWallReaders(url);
  await seedCaseData(url, scale.clients, longClientId);
  tools.report({
    part: 'queries',
    name: 'walls: cases added (one for every hundredth client, three on the long history) and records filed on them',
    value: (performance.now() - t0) / 1000,
    unit: 's',
  });
  const walled = benchCaller(url, readers.walled);
  const unwalled = benchCaller(url, readers.unwalled);
  const queries = wallQueries(scale.communications, longClientId);

  await keepReadersUnread(readers);
  const before = new Map<string, number[]>();
  for (const q of queries) before.set(q.name, await timeAlone(await q.prepare(unwalled), q.input, scale.calls));

  const t1 = performance.now();
  const seeded = await seedWalls(url, { clients: scale.clients, screens, readers });
  tools.report({
    part: 'queries',
    name: `walls: seeded (${seeded.restricted} restricted clients, ${seeded.members} memberships, ${seeded.screens} screens of which ${seeded.walledScreens} the walled reader's)`,
    value: (performance.now() - t1) / 1000,
    unit: 's',
  });

  await keepReadersUnread(readers);
  for (const q of queries) {
    const runs = { walled: await q.prepare(walled), unwalled: await q.prepare(unwalled) };
    const after = await timeInterleaved(runs, q.input, scale.calls);
    const p95 = {
      before: percentile(before.get(q.name)!, 95),
      walled: percentile(after.walled, 95),
      unwalled: percentile(after.unwalled, 95),
    };
    const walledP50 = percentile(after.walled, 50).toFixed(2);
    const rows = [
      {
        against: 'before walls',
        name: `the unwalled reader before any wall (p50 ${percentile(before.get(q.name)!, 50).toFixed(2)} ms)`,
        ceiling: p95.before,
      },
      {
        against: 'unwalled reader',
        name: `the unwalled reader after the walls, calls interleaved (p50 ${percentile(after.unwalled, 50).toFixed(2)} ms)`,
        ceiling: p95.unwalled,
      },
    ];
    let missed = false;
    for (const row of rows) {
      const ratio = p95.walled / row.ceiling;
      const pass = ratio <= MAX_RATIO && p95.walled <= MAX_MS;
      missed ||= !pass;
      tools.report({
        part: 'queries',
        name: `walls: ${q.name}: walled reader p95 (p50 ${walledP50} ms) vs ${row.name}`,
        value: p95.walled,
        unit: 'ms',
        ceiling: row.ceiling,
        ceilingName: row.against,
        ratio,
        target: `≤ ${MAX_RATIO}× ${row.against} and ≤ ${MAX_MS} ms`,
        pass,
      });
    }
    if (missed) {
      const input = q.input();
      console.log(`EXPLAIN ANALYZE, walled reader — ${await explainCall(sequelize, () => runs.walled(input))}`);
      console.log(`EXPLAIN ANALYZE, unwalled reader — ${await explainCall(sequelize, () => runs.unwalled(input))}`);
    }
  }
}

/** The procedures measured: the inbox and its filters, the search rows' searches, the long thread's pages, the unread badge. */
function wallQueries(communications: number, longClientId: number): TWallQuery[] {
  const none = () => '';
  const random = (max: number) => 1 + Math.floor(Math.random() * max);
  const threads = (['all', 'unread', 'unlinked', 'awaiting_reply'] as const).map((filter): TWallQuery => ({
    name: `inbox.threads filter ${filter} (first page)`,
    input: none,
    prepare: (c) => () => c.inbox.threads({ filter }),
  }));
  const search = (name: string, input: () => string): TWallQuery => ({ name, input, prepare: (c) => (q) => c.inbox.search({ q }) });
  return [
    ...threads,
    search('inbox.search one common word', () => pick(COMMON)),
    search('inbox.search two words', () => `${pick(COMMON)} ${pick(SECOND)}`),
    search('inbox.search a phrase', () => `"${pick(COMMON)} about the ${pick(SECOND)}"`),
    search('inbox.search a reference', () => `R${random(communications)}`),
    {
      name: 'long thread, first page (50)',
      input: none,
      prepare: (c) => () => c.inbox.thread({ clientId: longClientId, limit: PAGE }),
    },
    {
      name: 'long thread, 50th page',
      input: none,
      prepare: async (c) => {
        // Each reader's own 50th page: the walled reader's pages skip the records on the case they are screened from.
        let cursor: string | undefined;
        for (let i = 1; i < 50; i++)
          cursor = (await c.inbox.thread({ clientId: longClientId, cursor, limit: PAGE })).nextCursor ?? undefined;
        if (!cursor) throw new Error('the long thread has no 50th page');
        return () => c.inbox.thread({ clientId: longClientId, cursor, limit: PAGE });
      },
    },
    { name: 'inbox.unreadCount', input: none, prepare: (c) => () => c.inbox.unreadCount() },
  ];
}

async function timeAlone(run: (input: string) => Promise<unknown>, input: () => string, calls: number): Promise<number[]> {
  for (let i = 0; i < WARM_UP; i++) await run(input());
  const times: number[] = [];
  for (let i = 0; i < calls; i++) times.push(await timed(run, input()));
  return times.sort((a, b) => a - b);
}

/** Both readers with the same input each round, taking turns at going first (neither always finds the other's pages cached). */
async function timeInterleaved(
  runs: { walled: (input: string) => Promise<unknown>; unwalled: (input: string) => Promise<unknown> },
  input: () => string,
  calls: number,
): Promise<{ walled: number[]; unwalled: number[] }> {
  for (let i = 0; i < WARM_UP; i++) {
    const x = input();
    await runs.walled(x);
    await runs.unwalled(x);
  }
  const times = { walled: [] as number[], unwalled: [] as number[] };
  for (let i = 0; i < calls; i++) {
    const x = input();
    const order = i % 2 === 0 ? (['walled', 'unwalled'] as const) : (['unwalled', 'walled'] as const);
    for (const who of order) times[who].push(await timed(runs[who], x));
  }
  times.walled.sort((a, b) => a - b);
  times.unwalled.sort((a, b) => a - b);
  return times;
}

async function timed(run: (input: string) => Promise<unknown>, input: string): Promise<number> {
  const t = performance.now();
  await run(input);
  return performance.now() - t;
}
