import { createHmac } from 'node:crypto';
import pg from 'pg';
import { migrateOnly, startApp } from '../app-under-test';
import { createDatabase, percentile, query, SECRET, type TBenchTools } from '../bench-support';

// Part 2, the receipt batch: one webhook carrying many status receipts, applied set-based, against
// the same receipts applied one statement at a time.

export async function benchReceipts(adminUrl: string, tools: TBenchTools) {
  const n = tools.scale.receipts;
  console.log(`\n== 2. Receipt batch: one webhook with ${n} status receipts vs ${n} single statements`);
  const url = await createDatabase(adminUrl, 'bench_receipts');
  await migrateOnly(url);
  const seed = `INSERT INTO communications (type, direction, status, body, peer_phone, metadata)
    SELECT 'chat', 'outbound', 'sent', 'hello', '447700900123', jsonb_build_object('chat_msg_id', 'wamid.r-' || g) FROM generate_series(1, ${n}) g;
    INSERT INTO communications (type, direction, status, body, peer_phone, metadata)
    SELECT 'chat', 'outbound', 'sent', 'hello', '447700900123', jsonb_build_object('chat_msg_id', 'wamid.warm-' || g) FROM generate_series(1, ${n}) g`;
  await query(url, seed);
  const statuses = Array.from({ length: n }, (_, i) => ({
    id: `wamid.r-${i + 1}`,
    status: 'delivered',
    timestamp: '1763700000',
    recipient_id: '447700900123',
  }));
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: 'B', changes: [{ field: 'messages', value: { statuses } }] }],
  });
  const signature = createHmac('sha256', SECRET).update(body).digest('hex');
  const reset = async () => {
    await query(url, "UPDATE communications SET status = 'sent', receipts = '{}' WHERE metadata->>'chat_msg_id' LIKE 'wamid.r-%'");
    await query(url, 'VACUUM communications');
  };
  const batchTimes: number[] = [];
  let answer = { updated: 0 };
  const app = await startApp(url);
  try {
    // Steady state, as for the single statements: warm the server's code paths, connections and
    // PostgreSQL's caches with same-sized batches for other records first.
    for (const status of ['sent', 'delivered', 'read']) {
      const warm = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'B',
            changes: [
              {
                field: 'messages',
                value: { statuses: Array.from({ length: n }, (_, i) => ({ id: `wamid.warm-${i + 1}`, status, timestamp: '1763700000' })) },
              },
            ],
          },
        ],
      });
      await fetch(`${app.url}/api/webhooks/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': createHmac('sha256', SECRET).update(warm).digest('hex') },
        body: warm,
      });
    }
    // Median of several rounds: one HTTP round trip is too short to time once on a shared machine.
    for (let round = 0; round < 7; round++) {
      await reset();
      const t0 = performance.now();
      const res = await fetch(`${app.url}/api/webhooks/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signature },
        body,
      });
      answer = (await res.json()) as { updated: number };
      batchTimes.push(performance.now() - t0);
    }
  } finally {
    await app.stop();
  }
  const batchMs = percentile(
    batchTimes.sort((a, b) => a - b),
    50,
  );

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const singleTimes: number[] = [];
  for (let round = 0; round < 3; round++) {
    await reset();
    const t1 = performance.now();
    // The same application per receipt (monotonic status and its history), one statement each.
    for (const s of statuses) {
      await client.query(
        `UPDATE communications
         SET status = CASE WHEN status IS DISTINCT FROM 'failed' AND ($2 = 'failed'
                OR array_position(ARRAY['pending','sent','delivered','read'], status) < array_position(ARRAY['pending','sent','delivered','read'], $2))
              THEN $2 ELSE status END,
             receipts = $3::jsonb || receipts,
             updated_at = now()
         WHERE metadata->>'chat_msg_id' = $1 AND direction = 'outbound'`,
        [s.id, s.status, JSON.stringify({ [s.status]: { at: new Date(Number(s.timestamp) * 1000).toISOString() } })],
      );
    }
    singleTimes.push(performance.now() - t1);
  }
  const singleMs = percentile(
    singleTimes.sort((a, b) => a - b),
    50,
  );
  await client.end();
  tools.report({
    part: 'receipts',
    name: `${n} receipts in one webhook (HTTP included; median of 7), updated ${answer.updated}`,
    value: batchMs,
    unit: 'ms',
  });
  tools.report({ part: 'receipts', name: `${n} receipts one statement at a time (median of 3)`, value: singleMs, unit: 'ms' });
  tools.report({
    part: 'receipts',
    name: 'speed-up of the set-based batch',
    value: singleMs / batchMs,
    unit: '×',
    target: '≥ 20',
    pass: singleMs / batchMs >= 20 && answer.updated === n,
  });
}
