import pg from 'pg';
import type { Sequelize } from 'sequelize';
import type { Sql } from '../../../server/core/sql';
import { threadsPageQuery } from '../../../server/inbox/list-threads';
import { scheduleConversationTimers } from '../../../server/ownership/conversation-timers';
import { benchLogger } from '../app-under-test';
import { query, type TBenchTools } from '../bench-support';
import { peakRssDuring, rssMb } from '../process-memory';
import { benchCaller } from './bench-caller';
import { explainStatement } from './explain-call';

// Ownership (server/ownership/README.md "Ownership"), last of part 3 and on its data: who handles each conversation and
// whether it is open, done or snoozed, as a firm's table would hold them; then the inbox's ownership
// filters, and the snooze timer's poll against a minute in which 10,000 snoozes end at once.

/** The people conversations are assigned to: the bench viewer (user 1, the queries part's caller) and nine more. */
const TEAM = 10;
/** Snoozes that end at the same moment. */
const SNOOZES = 10_000;
/** How far ahead of their insert the snoozes end: they are all committed, and none due, before that moment. */
const SNOOZE_LEAD_S = 2;
const REOPEN_TARGET_S = 5;
const REOPEN_TIMEOUT_S = 60;

type TMeasure = (name: string, targetMs: number, fn: () => Promise<unknown>, explain?: () => Promise<string>) => Promise<void>;

export async function benchOwnership(url: string, sequelize: Sequelize, measure: TMeasure, tools: TBenchTools): Promise<void> {
  const { scale } = tools;
  // The reply target (REPLY_TARGET_MINUTES, 240 by default) against a million records a second
  // apart (11.6 days); --quick's 20,000 span a fiftieth of that, so its target is a fiftieth too (5
  // minutes): the same share of conversations is within it at either size.
  const replyTargetMinutes = Math.round((240 * scale.communications) / 1_000_000);
  console.log(
    `\n-- Ownership: every conversation given an owner and a state as a firm's would have them, over ${TEAM} people; reply target ${replyTargetMinutes} minutes; ${scale.calls} calls each`,
  );
  const t0 = performance.now();
  const seeded = await seedOwnership(url, replyTargetMinutes);
  tools.report({
    part: 'queries',
    name:
      `ownership: seeded (${seeded.conversations} conversations, ${seeded.rows} with a row of their own; ${seeded.replies} waits past the reply target answered first; ` +
      `open ${seeded.open}, done ${seeded.done}, snoozed ${seeded.snoozed}; open and the viewer's ${seeded.mine}, unassigned ${seeded.unassigned}, overdue ${seeded.overdue})`,
    value: (performance.now() - t0) / 1000,
    unit: 's',
  });

  // The queries part's caller (user 1, on no wall), with the reply target above.
  const viewer = { id: 1, name: 'Bench', email: 'bench@firm.test', role: 'staff' as const };
  const caller = benchCaller(url, viewer, { REPLY_TARGET_MINUTES: String(replyTargetMinutes) });
  const explain = (statement: Sql) => explainStatement(sequelize, { sql: statement.text, bind: statement.values });
  for (const filter of ['mine', 'unassigned', 'overdue'] as const) {
    await measure(
      `inbox.threads filter ${filter} (open, first page)`,
      20,
      () => caller.inbox.threads({ filter }),
      explain(threadsPageQuery(viewer, { filter, replyTargetMinutes })),
    );
  }

  await benchSnoozesEnding(url, replyTargetMinutes, tools);
}

type TOwnershipSeed = {
  conversations: number;
  rows: number;
  replies: number;
  open: number;
  done: number;
  snoozed: number;
  mine: number;
  unassigned: number;
  overdue: number;
};

/**
 * The firm answers three in four of the waits past the reply target (a reply 5–120 minutes after
 * the client wrote), so about a tenth of the open conversations are overdue rather than the data
 * set's two in five. Then every conversation's row as the app would have made it, set-based and
 * deterministic by a hash of its key: a fifth have none (open, unassigned), another 8% a row with
 * nobody assigned; the rest round-robin, in the inbox's order, among the ten people (a restricted
 * client's to a member of its wall). 10% done, 5% snoozed for 1–5 days; the assignees of the
 * overdue ones were told already (as the overdue poll would have done).
 */
async function seedOwnership(url: string, replyTargetMinutes: number): Promise<TOwnershipSeed> {
  const [viewer] = await query<{ id: number }>(url, 'SELECT id FROM users WHERE id = 1');
  if (!viewer) throw new Error('the bench viewer (user 1) does not exist: the walls part makes it, and runs first');
  const cutoff = `now() - make_interval(mins => ${replyTargetMinutes})`;
  const [replies] = await query<{ n: number }>(
    url,
    `WITH inserted AS (
       INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, created_at, read_at)
       SELECT 'chat', 'outbound', 'read', 'Thank you, we are looking into it', t.client_id, coalesce(t.peer_phone, l.peer_phone),
              jsonb_build_object('chat_msg_id', 'wamid.own-reply-' || t.thread_key),
              l.created_at + (5 + abs(hashtext(t.thread_key || ':reply')) % 115) * interval '1 minute', now()
       FROM chat_threads t JOIN communications l ON l.id = t.last_id
       WHERE l.direction = 'inbound' AND l.created_at < ${cutoff} AND abs(hashtext(t.thread_key || ':reply')) % 4 > 0
       RETURNING 1)
     SELECT count(*)::int AS n FROM inserted`,
  );
  await query(
    url,
    `
    INSERT INTO users (email, name, role, password_hash)
    SELECT 'owner-' || g || '@bench.test', 'Owner ' || g, 'staff', 'no-password' FROM generate_series(2, ${TEAM}) g;
    DELETE FROM conversation_states;
    INSERT INTO conversation_states (thread_key, assignee_id, state, snoozed_until, overdue_notified_at)
    SELECT c.thread_key,
           CASE WHEN c.h < 28 THEN NULL
                WHEN cl.restricted THEN (SELECT min(m.user_id) FROM access_members m WHERE m.subject_type = 'client' AND m.subject_id = cl.id)
                ELSE (SELECT array_agg(u.id ORDER BY u.id) FROM users u WHERE u.id = 1 OR u.email LIKE 'owner-%@bench.test')[1 + c.n % ${TEAM}] END,
           CASE WHEN c.hs < 10 THEN 'done' WHEN c.hs < 15 THEN 'snoozed' ELSE 'open' END,
           CASE WHEN c.hs >= 10 AND c.hs < 15 THEN now() + (c.hs - 9) * interval '1 day' + c.h * interval '7 minutes' END,
           CASE WHEN c.h >= 28 AND c.hs >= 15 AND c.overdue THEN now() END
    FROM (SELECT t.thread_key, t.client_id, abs(hashtext(t.thread_key)) % 100 AS h, abs(hashtext(t.thread_key || ':state')) % 100 AS hs,
                 row_number() OVER (ORDER BY t.last_at DESC, t.last_id DESC) AS n,
                 l.direction = 'inbound' AND l.created_at < ${cutoff} AS overdue
          FROM chat_threads t JOIN communications l ON l.id = t.last_id) c
    LEFT JOIN clients cl ON cl.id = c.client_id
    WHERE c.h >= 20 OR c.hs < 15;
    ANALYZE users;
    ANALYZE conversation_states;
    ANALYZE chat_threads;
    ANALYZE communications;`,
  );
  const [counts] = await query<Omit<TOwnershipSeed, 'replies'>>(
    url,
    `SELECT count(*)::int AS conversations, count(o.thread_key)::int AS rows,
            count(*) FILTER (WHERE coalesce(o.state, 'open') = 'open')::int AS open,
            count(*) FILTER (WHERE o.state = 'done')::int AS done,
            count(*) FILTER (WHERE o.state = 'snoozed')::int AS snoozed,
            count(*) FILTER (WHERE coalesce(o.state, 'open') = 'open' AND o.assignee_id = 1)::int AS mine,
            count(*) FILTER (WHERE coalesce(o.state, 'open') = 'open' AND o.assignee_id IS NULL)::int AS unassigned,
            count(*) FILTER (WHERE coalesce(o.state, 'open') = 'open' AND l.direction = 'inbound' AND l.created_at < ${cutoff})::int AS overdue
     FROM chat_threads t JOIN communications l ON l.id = t.last_id LEFT JOIN conversation_states o ON o.thread_key = t.thread_key`,
  );
  return { ...counts!, replies: replies!.n };
}

/**
 * 10,000 conversations snoozed until one moment a couple of seconds ahead (the busiest minute there
 * can be: all of it at once), with the app's own timer running as the server runs it
 * (`scheduleConversationTimers`: a poll a second, rounds of 5,000 while a round is full). Timed from
 * the moment they are due until none is snoozed and every one's audit row is written, reading the
 * table every 20 ms on a connection of its own; the poller's process's memory is sampled meanwhile.
 */
async function benchSnoozesEnding(url: string, replyTargetMinutes: number, tools: TBenchTools): Promise<void> {
  const { clients } = tools.scale;
  // 10,000 of the full run's 100,000 clients; every client of a smaller (--quick) set.
  const snoozes = Math.min(SNOOZES, clients);
  const watcher = new pg.Client({ connectionString: url });
  await watcher.connect();
  const stop = scheduleConversationTimers(benchLogger, replyTargetMinutes);
  try {
    await new Promise((r) => setTimeout(r, 1_500)); // the timers' first rounds, which find nothing due
    const [{ before }] = (await watcher.query<{ before: string }>('SELECT coalesce(max(id), 0)::text AS before FROM audit_events'))
      .rows as [{ before: string }];
    const [{ due }] = (await watcher.query<{ due: string }>(`SELECT (now() + make_interval(secs => ${SNOOZE_LEAD_S}))::text AS due`))
      .rows as [{ due: string }];
    // Clients spread over the whole set (every tenth of 100,000; all of --quick's), open, done or snoozed before.
    await watcher.query(
      `INSERT INTO conversation_states (thread_key, state, snoozed_until)
       SELECT 'client-' || (g * ${Math.max(1, Math.floor(clients / snoozes))}), 'snoozed', $1::timestamptz FROM generate_series(1, ${snoozes}) g
       ON CONFLICT (thread_key) DO UPDATE SET state = 'snoozed', snoozed_until = excluded.snoozed_until, updated_at = now()`,
      [due],
    );
    // Timed from the moment they end or, should storing them have taken longer than the lead, from
    // when they were all stored (none could be reopened before): a slow machine is slower, not wrong.
    const [{ from, lead }] = (
      await watcher.query<{ from: string; lead: number }>(
        'SELECT greatest($1::timestamptz, clock_timestamp())::text AS from, extract(epoch FROM $1::timestamptz - clock_timestamp())::float AS lead',
        [due],
      )
    ).rows as [{ from: string; lead: number }];
    if (lead < 0)
      console.log(`(storing the snoozes took ${(SNOOZE_LEAD_S - lead).toFixed(2)} s, past their end: timed from when they were stored)`);

    const watch = async () => {
      for (;;) {
        const { rows } = await watcher.query<{ left: number; audited: number; since: number }>(
          `SELECT (SELECT count(*) FROM conversation_states WHERE state = 'snoozed' AND snoozed_until = $1::timestamptz)::int AS left,
                  (SELECT count(*) FROM audit_events WHERE id > $2::bigint AND action = 'inbox.state' AND user_id IS NULL)::int AS audited,
                  extract(epoch FROM clock_timestamp() - $3::timestamptz)::float AS since`,
          [due, before, from],
        );
        const [row] = rows as [{ left: number; audited: number; since: number }];
        if (row.since >= 0 && row.left === 0 && row.audited >= snoozes) return row.since;
        if (row.since > REOPEN_TIMEOUT_S)
          throw new Error(
            `${row.left} of ${snoozes} snoozes still not reopened ${REOPEN_TIMEOUT_S} s after they ended (${row.audited} audited)`,
          );
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const rssBefore = rssMb(process.pid);
    const { peak, result: seconds } = await peakRssDuring(process.pid, watch);
    // One audit row per conversation, stamped with its round's transaction time: the rounds, from the moment.
    const rounds = (
      await watcher.query<{ n: number; after: number }>(
        `SELECT count(*)::int AS n, extract(epoch FROM at - $1::timestamptz)::float AS after FROM audit_events
         WHERE id > $2::bigint AND action = 'inbox.state' AND user_id IS NULL GROUP BY at ORDER BY at`,
        [from, before],
      )
    ).rows;
    const roundsText = rounds.map((r) => `${r.n.toLocaleString('en-GB')} at +${r.after.toFixed(2)} s`).join(', ');
    tools.report({
      part: 'queries',
      name: `ownership: ${snoozes.toLocaleString('en-GB')} snoozes ending at the same moment, from it to all reopened and audited (the app's timer: rounds ${roundsText})`,
      value: seconds,
      unit: 's',
      ceiling: REOPEN_TARGET_S,
      ceilingName: 'target',
      ratio: seconds / REOPEN_TARGET_S,
      target: `≤ ${REOPEN_TARGET_S} s`,
      pass: seconds <= REOPEN_TARGET_S,
    });
    tools.report({
      part: 'queries',
      name: `ownership: the poller's process (this one) peak RSS growth while they reopened (${rssBefore.toFixed(0)} MB before)`,
      value: peak - rssBefore,
      unit: 'MB',
    });
  } finally {
    stop();
    await new Promise((r) => setTimeout(r, 200)); // a round already under way ends before the pool closes
    await watcher.end();
  }
}
