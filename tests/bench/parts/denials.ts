import { migrateOnly, startSignedInApp } from '../app-under-test';
import { bySize, createDatabase, percentile, query, type TBenchTools } from '../bench-support';

// Part 14, walled and missing answers: a record the reader is walled from must answer in the time a
// missing one does (server/access/README.md "What the trail records"), or the time tells which ids
// exist. Every walled call is a first attempt (a client of its own), so each one's access.denied
// is really written, not found already written within the minute.

const PROCEDURES = ['clients.get', 'inbox.thread'] as const;
/** A chat's worth of messages on each walled client: the thread's page reads them before it answers. */
const MESSAGES_EACH = 20;

export async function benchDenials(adminUrl: string, tools: TBenchTools) {
  const calls = bySize(tools.size, { full: 400, quick: 40, smoke: 10 });
  console.log(
    `\n== 14. Walled vs missing: ${calls} calls each of ${PROCEDURES.join(' and ')} (HTTP, the app process) for clients the reader is screened from and ids no client has, alternating; medians`,
  );
  const url = await createDatabase(adminUrl, 'bench_denials');
  await migrateOnly(url);
  const app = await startSignedInApp(url);
  try {
    const [reader] = await query<{ id: number }>(url, "SELECT id FROM users WHERE email = 'bench@firm.test'");
    const walled = await query<{ id: number }>(
      url,
      `INSERT INTO clients (name, created_at, updated_at)
       SELECT 'Walled ' || g, now(), now() FROM generate_series(1, $1::int) g RETURNING id`,
      [calls * 2],
    );
    await query(
      url,
      `INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata, created_at, updated_at)
       SELECT 'chat', 'inbound', 'Message ' || m, c.id, '4477009' || lpad(c.id::text, 5, '0'),
              jsonb_build_object('chat_msg_id', 'wamid.denial-' || c.id || '-' || m), now(), now()
       FROM clients c CROSS JOIN generate_series(1, $1::int) m WHERE c.name LIKE 'Walled %'`,
      [MESSAGES_EACH],
    );
    await query(
      url,
      `INSERT INTO access_screens (subject_type, subject_id, user_id, reason)
       SELECT 'client', id, $1::int, 'Bench screen' FROM clients WHERE name LIKE 'Walled %'`,
      [reader!.id],
    );
    const [last] = await query<{ id: number }>(url, 'SELECT max(id)::int AS id FROM clients');
    const ask = async (procedure: string, clientId: number) => {
      const input = encodeURIComponent(JSON.stringify({ json: { clientId } }));
      const started = performance.now();
      const res = await fetch(`${app.appUrl}/trpc/${procedure}?input=${input}`, { headers: { cookie: app.cookie } });
      await res.arrayBuffer();
      const ms = performance.now() - started;
      if (res.status !== 404) throw new Error(`${procedure} for client ${clientId} answered ${res.status}, not 404`);
      return ms;
    };
    // Warm the app's pool and the plans on ids outside both sets.
    for (let i = 0; i < 20; i++) for (const procedure of PROCEDURES) await ask(procedure, last!.id + 1_000_000 + i);
    for (const [p, procedure] of PROCEDURES.entries()) {
      const times = { walled: [] as number[], missing: [] as number[] };
      for (let i = 0; i < calls; i++) {
        // Which goes first alternates, so neither always follows the other's background write.
        const pair = [
          ['walled', walled[p * calls + i]!.id],
          ['missing', last!.id + 10 + p * calls + i],
        ] as const;
        for (const [kind, id] of i % 2 ? [...pair].reverse() : pair) times[kind].push(await ask(procedure, id));
      }
      const walledMedian = percentile(
        [...times.walled].sort((a, b) => a - b),
        50,
      );
      const missingMedian = percentile(
        [...times.missing].sort((a, b) => a - b),
        50,
      );
      const difference = walledMedian - missingMedian;
      tools.report({
        part: '14. walled vs missing',
        name: `${procedure} median, walled (missing ${missingMedian.toFixed(2)} ms)`,
        value: walledMedian,
        unit: 'ms',
        ceiling: missingMedian + 1,
        ceilingName: 'missing + 1 ms',
        ratio: walledMedian / missingMedian,
        target: `median difference ≤ 1 ms (was ${difference.toFixed(2)} ms)`,
        pass: Math.abs(difference) <= 1,
      });
    }
    const [written] = await query<{ n: number }>(url, "SELECT count(*)::int AS n FROM audit_events WHERE action = 'access.denied'");
    console.log(`  access.denied rows written: ${written!.n} (one per walled call: ${calls * PROCEDURES.length})`);
  } finally {
    await app.stop();
  }
}
