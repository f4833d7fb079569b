import type { Sequelize } from 'sequelize';
import { loadConfig } from '../../../server/core/config';
import { matchOneClient } from '../../../server/crm/client-match';
import { sql, type Sql } from '../../../server/core/sql';
import { REBUILD_CHAT_THREADS_SQL } from '../../../server/core/db/migrations/0003-chat-threads';
import { openDatabase } from '../../../server/core/db/open-database';
import { threadsPageQuery } from '../../../server/inbox/list-threads';
import { recordPageQuery } from '../../../server/core/record-pages';
import { benchLogger } from '../app-under-test';
import { createDatabase, query, reportP95, type TBenchTools } from '../bench-support';
import { benchCaller, type TBenchCaller } from './bench-caller';
import { explainStatement } from './explain-call';
import { benchOwnership } from './ownership';
import { COMMON, pick, SECOND } from './search-words';
import { benchWallQueries } from './walls-queries';

// Part 3, queries at scale: the inbox, receipt lookup, client match and search on a database of many
// clients and communications, called in-process through the real tRPC routers; then one long history,
// the ethical walls (walls-queries.ts) and ownership (ownership.ts) on the same data.

export async function benchQueries(adminUrl: string, tools: TBenchTools) {
  const { scale } = tools;
  console.log(`\n== 3. Queries at scale: ${scale.clients} clients, ${scale.communications} communications, ${scale.calls} calls each`);
  const url = await createDatabase(adminUrl, 'bench_scale');
  const database = await openDatabase(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'warn' }), benchLogger);
  const sequelize = database.sequelize;
  const t0 = performance.now();
  // A plain connection: the app's pool has a 5 s statement_timeout, meant for requests, not bulk loads.
  await query(
    url,
    `
    INSERT INTO clients (name) SELECT 'Client ' || g FROM generate_series(1, ${scale.clients}) g;
    INSERT INTO client_numbers (client_id, digits, "primary") SELECT g, '447' || lpad(g::text, 9, '0'), true FROM generate_series(1, ${scale.clients}) g;
    ALTER TABLE communications DISABLE TRIGGER communications_chat_threads_insert;
    INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, created_at, read_at)
    SELECT CASE WHEN g % 10 < 7 THEN 'chat' WHEN g % 10 < 8 THEN 'note' WHEN g % 10 < 9 THEN 'email' ELSE 'call' END,
           CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'outbound' END,
           CASE WHEN g % 10 < 7 AND g % 2 = 1 THEN (ARRAY['sent','delivered','read','failed'])[1 + g % 4] END,
           -- Words in the proportions of a real inbox, whatever the record's type (g % 10): every word of the first list in 5% of records,
           -- of the second in 2.5%, a long tail of 5,000 rarer words (the commonest in 1.6%, most in
           -- under 0.01%: real text has one, and the planner's statistics depend on it), and a
           -- reference number each record has alone.
           (ARRAY['invoice','hearing','contract','deposit','payslips','completion','tenancy','landlord','mortgage','settlement',
                  'appointment','signature','witness','statement','evidence','court','letter','agreement','probate','claim'])[1 + (g / 10) % 20]
             || ' about the ' ||
           (ARRAY['office','bundle','deadline','document','meeting','friday','monday','payment','copy','form',
                  'photo','scan','lease','will','estate','employer','tribunal','buyer','seller','agent',
                  'valuation','survey','search','draft','schedule','notice','reply','update','question','call',
                  'email','portal','fee','quote','receipt','balance','transfer','keys','exchange','date'])[1 + (g / 200) % 40]
             || ' on tail' || (power(((g::bigint * 7919) % 10007) / 10007.0, 4) * 5000)::int
             || ' reference R' || g,
           CASE WHEN g % 20 = 0 THEN NULL ELSE 1 + (g::bigint * 7919) % ${scale.clients} END,
           '447' || lpad((CASE WHEN g % 20 = 0 THEN 900000000 + g % 5000 ELSE 1 + (g::bigint * 7919) % ${scale.clients} END)::text, 9, '0'),
           CASE WHEN g % 10 < 7 THEN jsonb_build_object('chat_msg_id', 'wamid.s-' || g) ELSE '{}'::jsonb END,
           now() - (${scale.communications} - g) * interval '1 second',
           CASE WHEN g % 7 = 0 THEN NULL ELSE now() END
    FROM generate_series(1, ${scale.communications}) g;
    ALTER TABLE communications ENABLE TRIGGER communications_chat_threads_insert;
    ${REBUILD_CHAT_THREADS_SQL}
    ANALYZE;
  `,
  );
  tools.report({
    part: 'queries',
    name: 'seeding (multi-row INSERT … SELECT, summary rebuild, ANALYZE)',
    value: (performance.now() - t0) / 1000,
    unit: 's',
  });

  const caller = benchCaller(url, { id: 1, name: 'Bench', email: 'bench@firm.test', role: 'staff' });
  const random = (max: number) => 1 + Math.floor(Math.random() * max);
  const measure = async (name: string, targetMs: number, fn: () => Promise<unknown>, explain?: () => Promise<string>) => {
    for (let i = 0; i < 20; i++) await fn(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < scale.calls; i++) {
      const t = performance.now();
      await fn();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const p95 = reportP95(tools, 'queries', name, times, targetMs);
    if (p95 > targetMs && explain) console.log(await explain());
  };
  const plan = (sql: string, bind: unknown[]) => explainStatement(sequelize, { sql, bind });
  const explainSql = (statement: Sql) => plan(statement.text, statement.values);

  await measure('inbox.thread (random client)', 5, () => caller.inbox.thread({ clientId: random(scale.clients) }));
  const receiptSql = "SELECT id, status FROM communications WHERE metadata->>'chat_msg_id' = $1";
  await measure(
    'receipt lookup by chat_msg_id',
    5,
    () => sequelize.query(receiptSql, { bind: [`wamid.s-${random(scale.communications)}`] }),
    plan(receiptSql, ['wamid.s-1']),
  );
  const matchSql = (digits: string) => sql`SELECT ${matchOneClient(sql`${digits}::text`)} AS id`; // the rule the app runs
  await measure(
    'client match (exact number, else last 9 digits)',
    5,
    () => {
      const match = matchSql(`447${String(random(scale.clients)).padStart(9, '0')}`);
      return sequelize.query(match.text, { bind: match.values });
    },
    explainSql(matchSql('447000000001')),
  );
  await measure('inbox.threads (first page)', 20, () => caller.inbox.threads());
  for (const filter of ['unread', 'unlinked', 'awaiting_reply'] as const) {
    await measure(`inbox.threads filter ${filter} (first page)`, 20, () => caller.inbox.threads({ filter }));
  }
  await measure('inbox.search one common word (5% of records)', 20, () => caller.inbox.search({ q: pick(COMMON) }));
  await measure('inbox.search two words (0.1% of records)', 20, () => caller.inbox.search({ q: `${pick(COMMON)} ${pick(SECOND)}` }));
  await measure('inbox.search a phrase', 20, () => caller.inbox.search({ q: `"${pick(COMMON)} about the ${pick(SECOND)}"` }));
  await measure('inbox.search a reference (one record)', 20, () => caller.inbox.search({ q: `R${random(scale.communications)}` }));
  // Last: its 20,000 records get the newest ids, which search walks first.
  await benchLongHistory(url, sequelize, caller, measure, tools);
  // Last again: the walls add cases and file records on them, which the rows above must not see.
  await benchWallQueries(url, sequelize, tools);
  // Last of all: ownership answers some waits and gives conversations owners and states, over the walls' people.
  await benchOwnership(url, sequelize, measure, tools);
  await database.close();
}

/**
 * Long histories: one client with 20,000 chat messages (and notes) among the million,
 * paged as the SPA pages them — the first page and the 50th of the thread, of the client's
 * timeline and of the inbox, 50 a page each. EXPLAIN ANALYZE printed for a miss.
 */
async function benchLongHistory(
  url: string,
  sequelize: Sequelize,
  caller: TBenchCaller,
  measure: (name: string, targetMs: number, fn: () => Promise<unknown>, explain?: () => Promise<string>) => Promise<void>,
  tools: TBenchTools,
) {
  const t0 = performance.now();
  const [{ id: clientId }] = (await query(
    url,
    `
    WITH c AS (INSERT INTO clients (name) VALUES ('Long History') RETURNING id),
         n AS (INSERT INTO client_numbers (client_id, digits, "primary") SELECT id, '447999000001', true FROM c)
    SELECT id FROM c`,
  )) as [{ id: number }];
  // 20,000 messages over the last three years, interleaved with everyone else's; a note every tenth.
  await query(
    url,
    `
    INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, created_at, read_at)
    SELECT 'chat', CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'outbound' END, CASE WHEN g % 2 = 1 THEN 'read' END,
           'Long history message ' || g, ${clientId}, '447999000001', jsonb_build_object('chat_msg_id', 'wamid.long-' || g),
           now() - (20000 - g) * interval '80 minutes', now()
    FROM generate_series(1, 20000) g;
    INSERT INTO communications (type, body, client_id, metadata, created_at)
    SELECT 'note', 'Long history note ' || g, ${clientId}, '{}', now() - (2000 - g) * interval '800 minutes' FROM generate_series(1, 2000) g;
    ANALYZE communications;`,
  );
  tools.report({
    part: 'queries',
    name: 'long history: one client with 20,000 messages and 2,000 notes added',
    value: (performance.now() - t0) / 1000,
    unit: 's',
  });

  /** The cursor of page `n` (1-based), by walking the pages as a reader would. */
  const cursorOfPage = async (n: number, next: (cursor: string | undefined) => Promise<string | null>) => {
    let cursor: string | undefined;
    for (let i = 1; i < n; i++) cursor = (await next(cursor)) ?? undefined;
    if (!cursor) throw new Error(`no page ${n}`);
    return cursor;
  };
  // The same person as the caller's (a staff member on no wall).
  const benchViewer = { id: 1, role: 'staff' as const };
  const explain = (statement: { sql: string; bind: unknown[] }) => explainStatement(sequelize, statement);
  const explainSql = (statement: Sql) => explain({ sql: statement.text, bind: statement.values });

  const PAGE = 50; // as the SPA asks (client/src/lib/cache-patches.ts, older-pages.ts)
  const threadScope = { column: 'client_id' as const, id: clientId, chatOnly: true };
  const threadAt50 = await cursorOfPage(50, async (cursor) => (await caller.inbox.thread({ clientId, cursor, limit: PAGE })).nextCursor);
  await measure(
    'long thread, first page (50)',
    5,
    () => caller.inbox.thread({ clientId, limit: PAGE }),
    explainSql(recordPageQuery(threadScope, { limit: PAGE, viewer: benchViewer })),
  );
  await measure(
    'long thread, 50th page',
    5,
    () => caller.inbox.thread({ clientId, cursor: threadAt50, limit: PAGE }),
    explainSql(recordPageQuery(threadScope, { cursor: threadAt50, limit: PAGE, viewer: benchViewer })),
  );

  const timelineScope = { column: 'client_id' as const, id: clientId, chatOnly: false };
  const timelineAt50 = await cursorOfPage(
    50,
    async (cursor) => (await caller.timeline.client({ clientId, cursor, limit: PAGE })).nextCursor,
  );
  await measure(
    'long timeline, first page (50)',
    5,
    () => caller.timeline.client({ clientId, limit: PAGE }),
    explainSql(recordPageQuery(timelineScope, { limit: PAGE, viewer: benchViewer })),
  );
  await measure(
    'long timeline, 50th page',
    5,
    () => caller.timeline.client({ clientId, cursor: timelineAt50, limit: PAGE }),
    explainSql(recordPageQuery(timelineScope, { cursor: timelineAt50, limit: PAGE, viewer: benchViewer })),
  );

  const inboxAt50 = await cursorOfPage(50, async (cursor) => (await caller.inbox.threads({ cursor })).nextCursor);
  await measure('inbox, first page (50)', 5, () => caller.inbox.threads(), explainSql(threadsPageQuery(benchViewer, {})));
  await measure(
    'inbox, 50th page',
    5,
    () => caller.inbox.threads({ cursor: inboxAt50 }),
    explainSql(threadsPageQuery(benchViewer, { cursor: inboxAt50 })),
  );
}
