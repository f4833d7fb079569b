import { createHmac } from 'node:crypto';
import { migrateOnly, startApp } from '../app-under-test';
import { bySize, createDatabase, loadWebhook, query, SECRET, type TBenchTools, type TLoadResult } from '../bench-support';

// Part 6, load: mixed webhook traffic (new messages, duplicate deliveries, status receipts) at 100
// connections; nothing refused, every answered id stored, no status going backwards.

export async function benchLoad(adminUrl: string, tools: TBenchTools) {
  const seconds = bySize(tools.size, { full: 30, quick: 2, smoke: 1 });
  console.log(`\n== 6. Load: 100 connections, ${seconds} s, mixed traffic (20% status receipts, 20% duplicate deliveries)`);
  const url = await createDatabase(adminUrl, 'bench_load');
  await migrateOnly(url);
  await query(
    url,
    `INSERT INTO communications (type, direction, status, body, peer_phone, metadata)
    SELECT 'chat', 'outbound', 'sent', 'hello', '447700900123', jsonb_build_object('chat_msg_id', 'wamid.load-out-' || g) FROM generate_series(1, 2000) g`,
  );
  const statuses = ['sent', 'delivered', 'read'];
  const receipt = () => {
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'L',
          changes: [
            {
              field: 'messages',
              value: {
                statuses: [
                  {
                    id: `wamid.load-out-${1 + Math.floor(Math.random() * 2000)}`,
                    status: statuses[Math.floor(Math.random() * 3)],
                    timestamp: '1763700000',
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    return { body, signature: `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` };
  };
  const app = await startApp(url);
  let result: TLoadResult;
  try {
    // 20% of requests are receipts; a quarter of the rest (20% of all) repeat a delivered id.
    result = await loadWebhook(`${app.url}/api/webhooks/chat`, {
      connections: 100,
      seconds,
      duplicateRate: 0.25,
      receipts: () => (Math.random() < 0.2 ? receipt() : null),
    });
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await app.stop();
  }
  const [counts] = await query<{ rows: number; acked: number; regressed: number }>(
    url,
    `SELECT count(*) FILTER (WHERE metadata->>'chat_msg_id' LIKE 'wamid.bench-%')::int AS rows,
            count(*) FILTER (WHERE metadata->>'chat_msg_id' = ANY($1::text[]))::int AS acked,
            count(*) FILTER (WHERE direction = 'outbound' AND receipts ? 'read' AND status <> 'read')::int AS regressed
     FROM communications`,
    [result.ackedIds],
  );
  tools.report({ part: 'load', name: `requests/s (p50 ${result.p50} ms)`, value: result.rps, unit: 'req/s' });
  tools.report({ part: 'load', name: 'p99 latency', value: result.p99, unit: 'ms' });
  tools.report({
    part: 'load',
    name: 'non-2xx or errors (503 would mean pool exhaustion)',
    value: result.non2xx + result.errors,
    unit: 'responses',
    target: '= 0',
    pass: result.non2xx + result.errors === 0,
  });
  tools.report({
    part: 'load',
    name: 'answered message ids found stored',
    value: counts!.acked,
    unit: 'ids',
    ceiling: result.acked,
    ceilingName: 'answered 2xx',
    ratio: counts!.acked / Math.max(result.acked, 1),
    target: '= 1.0',
    pass: counts!.acked === result.acked && counts!.rows <= result.sent,
  });
  tools.report({
    part: 'load',
    name: 'records whose status went back below a read receipt',
    value: counts!.regressed,
    unit: 'records',
    target: '= 0',
    pass: counts!.regressed === 0,
  });
}
