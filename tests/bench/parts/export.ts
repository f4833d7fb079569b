import { migrateOnly, startSignedInApp } from '../app-under-test';
import { bySize, createDatabase, query, type TBenchTools } from '../bench-support';
import { peakRssDuring, rssMb } from '../process-memory';

// Part 8, evidence export: a client's chat as PDF and JSON at two lengths, the app's memory growth
// at each, and how long the server keeps a health check waiting meanwhile.

export async function benchExport(adminUrl: string, tools: TBenchTools) {
  // Two lengths in one process: an export held in memory would grow with the number of messages;
  // a streamed one grows by about the same at both.
  const lengths = bySize(tools.size, { full: [1_000, 10_000], quick: [300, 1_500], smoke: [50, 150] });
  console.log(
    `\n== 8. Evidence export: a client's chat of ${lengths.join(' and ')} messages as PDF and JSON (GET /api/export); the app's resident memory sampled every 50 ms`,
  );
  const url = await createDatabase(adminUrl, 'bench_export');
  await migrateOnly(url);
  const app = await startSignedInApp(url);
  try {
    const clients: number[] = [];
    for (const length of lengths) {
      const [row] = await query<{ id: number }>(
        url,
        `INSERT INTO clients (name, created_at, updated_at) VALUES ('Export ${length}', now(), now()) RETURNING id`,
      );
      clients.push(row!.id);
      // Alternate sides, realistic lengths, receipts on what the firm sent, a file on one in 20.
      await query(
        url,
        `
        INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, receipts, provider_timestamp, sent_by, created_at, updated_at)
        SELECT 'chat', CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'outbound' END, CASE WHEN g % 2 = 1 THEN 'read' END,
               'Message ' || g || ': thank you for the documents, we will review the draft agreement and come back to you before the hearing on Friday.',
               $1::int, '447700900123', jsonb_build_object('chat_msg_id', 'wamid.export-' || $1::int || '-' || g),
               CASE WHEN g % 2 = 1 THEN jsonb_build_object('sent', jsonb_build_object('at', now()), 'delivered', jsonb_build_object('at', now()), 'read', jsonb_build_object('at', now())) ELSE '{}'::jsonb END,
               CASE WHEN g % 2 = 0 THEN now() - (${length} - g) * interval '1 minute' END, CASE WHEN g % 2 = 1 THEN 1 END,
               now() - (${length} - g) * interval '1 minute', now()
        FROM generate_series(1, ${length}) g`,
        [row!.id],
      );
      await query(
        url,
        `
        INSERT INTO attachments (communication_id, kind, mime_type, file_name, size, sha256, state)
        SELECT id, 'document', 'application/pdf', 'Scan ' || id || '.pdf', 250000, md5(id::text) || md5(id::text), 'stored'
        FROM communications WHERE client_id = $1 AND id % 20 = 0`,
        [row!.id],
      );
    }
    await query(url, 'ANALYZE');
    await new Promise((r) => setTimeout(r, 1_000));
    const results: Record<string, { growth: number; seconds: number; bytes: number }[]> = {};
    for (const format of ['pdf', 'json'] as const) {
      for (const [i, length] of lengths.entries()) {
        const before = rssMb(app.serverPid);
        // Meanwhile, a health check every 20 ms: how long the server keeps other requests waiting.
        let exporting = true;
        const healthWaits: number[] = [];
        const probing = (async () => {
          while (exporting) {
            const t = performance.now();
            await fetch(`${app.appUrl}/api/health`).then((res) => res.arrayBuffer());
            healthWaits.push(performance.now() - t);
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
        const {
          peak,
          seconds,
          result: bytes,
        } = await peakRssDuring(app.serverPid, async () => {
          try {
            const res = await fetch(`${app.appUrl}/api/export/client/${clients[i]}.${format}`, { headers: { cookie: app.cookie } });
            if (res.status !== 200) throw new Error(`export answered ${res.status}`);
            let got = 0;
            const reader = (res.body as ReadableStream<Uint8Array>).getReader();
            for (let part = await reader.read(); !part.done; part = await reader.read()) got += part.value.length;
            return got;
          } finally {
            exporting = false;
            await probing;
          }
        });
        (results[format] ??= []).push({ growth: peak - before, seconds, bytes });
        tools.report({
          part: 'export',
          name: `${format.toUpperCase()} of ${length.toLocaleString('en-GB')} messages (${(bytes / 1024 / 1024).toFixed(1)} MB, ${Math.round(length / seconds)} messages/s; peak RSS growth ${(peak - before).toFixed(0)} MB)`,
          value: seconds,
          unit: 's',
        });
        if (length === lengths[1]) {
          const slowest = Math.max(...healthWaits);
          tools.report({
            part: 'export',
            name: `slowest /api/health answer during it (${healthWaits.length} asked)`,
            value: slowest,
            unit: 'ms',
            ceiling: 250,
            ceilingName: 'target',
            ratio: slowest / 250,
            target: '≤ 250 ms (the server keeps answering)',
            pass: slowest <= 250,
          });
        }
      }
    }
    for (const [format, [short, long]] of Object.entries(results)) {
      // The longer export's growth over the shorter's: 1 means memory does not follow the length.
      const ratio = long!.growth / Math.max(short!.growth, 10);
      tools.report({
        part: 'export',
        name: `${format.toUpperCase()} peak RSS growth at ${lengths[1]!.toLocaleString('en-GB')} messages`,
        value: long!.growth,
        unit: 'MB',
        ceiling: Math.max(short!.growth, 10),
        ceilingName: `growth at ${lengths[0]!.toLocaleString('en-GB')} (at least 10)`,
        ratio,
        target: '≤ 3 (memory does not follow the length)',
        pass: ratio <= 3,
      });
    }
  } finally {
    await app.stop();
  }
}
