import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import { build } from 'vite';
import { SignInLimiter } from '../../server/auth/sign-in-limiter';
import { loadConfig } from '../../server/core/config';
import { findFreePort, startEmbeddedPostgres } from '../../server/core/db/embedded-postgres';
import { matchOneClientSql } from '../../server/crm/client-match';
import { REBUILD_CHAT_THREADS_SQL } from '../../server/core/db/migrations/0003-chat-threads';
import { openDatabase } from '../../server/core/db/open-database';
import { createLogger } from '../../server/core/logger';
import { threadsPageQuery } from '../../server/inbox/inbox';
import { recordPageQuery } from '../../server/core/record-pages';
import { createContextInner } from '../../server/trpc/context';
import { PostgresMediaStore } from '../../server/media/media-store';
import { createCallerFactory } from '../../server/trpc/init';
import { appRouter } from '../../server/trpc/app-router';
import {
  bodyOf,
  createDatabase,
  loadWebhook,
  MEDIA_RATE,
  percentile,
  query,
  ROOT,
  SECRET,
  startProcess,
  type TBenchDelivery,
  type TFigure,
  type TLoadResult,
} from './bench-support';
import { benchLive } from './live-updates';

// npm run bench [-- --quick]: every figure with the ceiling it is compared with and the ratio.
// Ratios are measured inside one run on one machine: absolute numbers vary with the machine.

const QUICK = process.argv.includes('--quick');
// --only=ingest,receipts,queries,bundle,startup,load,media,export,live runs a subset (for iterating on one part).
const ONLY = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const runs = (part: string) => !ONLY || ONLY.includes(part);
const SCALE = QUICK
  ? { seconds: 3, connections: 50, receipts: 200, clients: 10_000, communications: 100_000, calls: 100 }
  : {
      seconds: Number(process.env.BENCH_SECONDS ?? 20),
      connections: 50,
      receipts: 1_000,
      clients: 100_000,
      communications: 1_000_000,
      calls: 500,
    };
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const figures: TFigure[] = [];
const logger = createLogger('warn');

function report(figure: TFigure) {
  figures.push(figure);
  const parts = [`${figure.part} | ${figure.name}: ${formatNumber(figure.value)} ${figure.unit}`];
  if (figure.ceiling !== undefined) parts.push(`vs ${figure.ceilingName} ${formatNumber(figure.ceiling)} ${figure.unit}`);
  if (figure.ratio !== undefined) parts.push(`ratio ${figure.ratio.toFixed(2)}`);
  if (figure.target) parts.push(`target ${figure.target}: ${figure.pass ? 'MET' : 'MISSED'}`);
  console.log(parts.join(' | '));
}
const formatNumber = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2));

async function benchIngest(adminUrl: string) {
  console.log(
    `\n== 1. Webhook ingest: ${SCALE.connections} connections, ${SCALE.seconds} s each (two interleaved rounds), 20% duplicate deliveries, ${MEDIA_RATE * 100}% photos`,
  );
  // (a) db ceiling: bare INSERT … ON CONFLICT DO NOTHING from a pool at the same concurrency.
  const ceilingUrl = await createDatabase(adminUrl, 'bench_ceiling');
  await migrateOnly(ceilingUrl);
  const pool = new pg.Pool({ connectionString: ceilingUrl, max: SCALE.connections });
  const { createDeliveryFactory } = await import('./bench-support');
  const factory = createDeliveryFactory(0.2);
  let done = 0;
  const latencies: number[] = [];
  const deadline = performance.now() + SCALE.seconds * 1000;
  await Promise.all(
    Array.from({ length: SCALE.connections }, async () => {
      while (performance.now() < deadline) {
        const d = factory.next();
        const message = (JSON.parse(d.body) as TBenchDelivery).entry[0].changes[0].value.messages[0];
        const t = performance.now();
        await pool.query(
          `INSERT INTO communications (type, direction, body, peer_phone, metadata) VALUES ('chat', 'inbound', $1, $2, jsonb_build_object('chat_msg_id', $3::text)) ON CONFLICT ((metadata->>'chat_msg_id')) DO NOTHING`,
          [bodyOf(message), message.from, message.id],
        );
        latencies.push(performance.now() - t);
        done++;
      }
    }),
  );
  await pool.end();
  const ceilingRps = done / SCALE.seconds;

  // (b) the minimal server: HMAC check and that one INSERT per delivery.
  const minimalUrl = await createDatabase(adminUrl, 'bench_minimal');
  await migrateOnly(minimalUrl);
  const minimalPort = await findFreePort();
  const minimal = await startProcess(
    TSX,
    ['tests/bench/minimal-server.ts'],
    { DATABASE_URL: minimalUrl, PORT: String(minimalPort), SECRET, POOL: '10' },
    `http://127.0.0.1:${minimalPort}/`,
  );

  // The app: the real server process, the real webhook route, on its own database.
  const appUrl = await createDatabase(adminUrl, 'bench_app');
  const app = await startApp(appUrl).catch(async (error: unknown) => {
    await minimal.stop();
    throw error;
  });
  // Interleaved rounds (minimal, app, minimal, app) so drift in the machine's load hits both alike.
  const minimalRounds: TLoadResult[] = [];
  const appRounds: TLoadResult[] = [];
  const load = { connections: SCALE.connections, seconds: SCALE.seconds / 2, duplicateRate: 0.2 };
  try {
    for (let round = 0; round < 2; round++) {
      minimalRounds.push(await loadWebhook(`http://127.0.0.1:${minimalPort}/`, load));
      appRounds.push(await loadWebhook(`${app.url}/api/webhooks/chat`, load));
    }
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await app.stop();
    await minimal.stop();
  }
  const minimalResult = combineRounds(minimalRounds);
  const appResult = combineRounds(appRounds);
  const [counts] = await query<{ rows: number; acked: number; photos: number; files: number }>(
    appUrl,
    `SELECT count(*)::int AS rows, count(*) FILTER (WHERE metadata->>'chat_msg_id' = ANY($1::text[]))::int AS acked,
            count(*) FILTER (WHERE metadata->>'kind' = 'image')::int AS photos, (SELECT count(*)::int FROM attachments) AS files
     FROM communications WHERE metadata->>'chat_msg_id' LIKE 'wamid.bench-%'`,
    [appResult.ackedIds],
  );

  report({ part: 'ingest', name: 'db ceiling (pool INSERTs, no HTTP)', value: ceilingRps, unit: 'rows/s' });
  report({ part: 'ingest', name: 'minimal server', value: minimalResult.rps, unit: 'deliveries/s' });
  report({ part: 'ingest', name: 'minimal server p50/p99', value: minimalResult.p99, unit: `ms p99 (p50 ${minimalResult.p50} ms)` });
  report({
    part: 'ingest',
    name: 'app deliveries/s vs minimal server',
    value: appResult.rps,
    unit: 'deliveries/s',
    ceiling: minimalResult.rps,
    ceilingName: 'minimal',
    ratio: appResult.rps / minimalResult.rps,
    target: '≥ 1.0',
    pass: appResult.rps >= minimalResult.rps,
  });
  report({
    part: 'ingest',
    name: 'app deliveries/s vs db ceiling',
    value: appResult.rps,
    unit: 'deliveries/s',
    ceiling: ceilingRps,
    ceilingName: 'db ceiling',
    ratio: appResult.rps / ceilingRps,
    target: '≥ 0.6',
    pass: appResult.rps >= 0.6 * ceilingRps,
  });
  report({
    part: 'ingest',
    name: 'app p99 latency',
    value: appResult.p99,
    unit: `ms (p50 ${appResult.p50} ms)`,
    ceiling: minimalResult.p99,
    ceilingName: 'minimal p99',
    ratio: appResult.p99 / Math.max(minimalResult.p99, 1),
    target: '≤ minimal p99',
    pass: appResult.p99 <= minimalResult.p99,
  });
  report({
    part: 'ingest',
    name: 'app non-2xx',
    value: appResult.non2xx + appResult.errors,
    unit: 'responses',
    target: '= 0',
    pass: appResult.non2xx + appResult.errors === 0,
  });
  // Every id answered 2xx must be stored exactly once (the unique index makes "once" structural);
  // requests still in flight when the load stopped may be stored without their answer being seen.
  report({
    part: 'ingest',
    name: 'answered ids found stored',
    value: counts!.acked,
    unit: 'ids',
    ceiling: appResult.acked,
    ceilingName: 'distinct ids answered 2xx',
    ratio: counts!.acked / Math.max(appResult.acked, 1),
    target: '= 1.0',
    pass: counts!.acked === appResult.acked,
  });
  report({
    part: 'ingest',
    name: 'photos stored with their file recorded',
    value: counts!.files,
    unit: 'files',
    ceiling: counts!.photos,
    ceilingName: 'photo records',
    ratio: counts!.files / Math.max(counts!.photos, 1),
    target: '= 1.0',
    pass: counts!.files === counts!.photos && counts!.photos > 0,
  });
  report({
    part: 'ingest',
    name: 'rows stored vs distinct ids sent',
    value: counts!.rows,
    unit: 'rows',
    ceiling: appResult.sent,
    ceilingName: 'distinct ids sent',
    ratio: counts!.rows / Math.max(appResult.sent, 1),
    target: 'between answered and sent',
    pass: counts!.rows >= appResult.acked && counts!.rows <= appResult.sent,
  });
}

function combineRounds(rounds: TLoadResult[]): TLoadResult {
  const mean = (pick: (r: TLoadResult) => number) => rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
  const sum = (pick: (r: TLoadResult) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  return {
    rps: mean((r) => r.rps),
    p50: mean((r) => r.p50),
    p99: mean((r) => r.p99),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    total: sum((r) => r.total),
    acked: sum((r) => r.acked),
    ackedIds: rounds.flatMap((r) => r.ackedIds),
    sent: sum((r) => r.sent),
  };
}

async function migrateOnly(url: string) {
  const database = await openDatabase(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'warn' }), logger);
  await database.close();
}

async function startApp(databaseUrl: string) {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const running = await startProcess(
    TSX,
    ['server/main.ts'],
    {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      MESSAGING_WEBHOOK_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      MESSAGING_API_KEY: '',
      NODE_ENV: 'production',
    },
    `${url}/api/health`,
  );
  return { url, stop: running.stop };
}

/** Resident memory of a process, from /proc (Linux), in MB. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** Peak RSS of `pid` while `work` runs, sampled every 50 ms. */
async function peakRssDuring<T>(pid: number, work: () => Promise<T>): Promise<{ peak: number; result: T; seconds: number }> {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const t0 = performance.now();
  try {
    const result = await work();
    return { peak: Math.max(peak, rssMb(pid)), result, seconds: (performance.now() - t0) / 1000 };
  } finally {
    clearInterval(timer);
  }
}

/**
 * The app as its own process on `url` (migrated), with one member of staff signed in and one client:
 * the server's pid (tsx runs it as a child of its own) for memory, and the session cookie.
 */
async function startSignedInApp(url: string, extraEnv: Record<string, string> = {}) {
  const port = await findFreePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: url,
    PORT: String(port),
    MESSAGING_WEBHOOK_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    SESSION_SECRET: 'bench-session-secret-0123456789abcdef',
    NODE_ENV: 'production',
    ...extraEnv,
  };
  const app = await startProcess(TSX, ['server/main.ts'], env, `${appUrl}/api/health`);
  try {
    const serverPid = Number(readFileSync(`/proc/${app.child.pid}/task/${app.child.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
    const { runScript } = await import('../support/app-process');
    await runScript('server/scripts/user-add.ts', { ...process.env, ...env }, [
      '--email',
      'bench@firm.test',
      '--name',
      'Bench',
      '--role',
      'staff',
      '--password',
      'bench-password-123',
    ]);
    await query(url, "INSERT INTO clients (name, created_at, updated_at) VALUES ('Bench Client', now(), now())");
    await query(url, 'INSERT INTO client_numbers (client_id, digits, "primary") SELECT id, \'447700900123\', true FROM clients');
    const [client] = await query<{ id: number }>(url, 'SELECT id FROM clients LIMIT 1');
    const signIn = await fetch(`${appUrl}/trpc/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: { email: 'bench@firm.test', password: 'bench-password-123' } }),
    });
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    return { appUrl, serverPid, cookie, clientId: client!.id, stop: app.stop };
  } catch (error) {
    await app.stop();
    throw error;
  }
}

async function benchMedia(adminUrl: string) {
  // Two sizes in one process: memory that does not grow with the file is what "streamed" means. A
  // garbage-collected process's RSS also moves with allocation churn (freed buffers wait for a
  // collection), so growth is compared with the file: a process holding the file would grow by it.
  const sizes = QUICK ? [10, 50] : [20, 100];
  console.log(
    `\n== 7. Files: ${sizes.join(' MB and ')} MB files streamed in and out of the app process; its resident memory sampled every 50 ms`,
  );
  const { startProviderSimulator } = await import('../../server/dev/provider-sim/provider-simulator');
  const key = 'bench-provider-key';
  const sim = await startProviderSimulator({ apiKey: key, webhookSecret: SECRET, autoReceipts: false });
  const url = await createDatabase(adminUrl, 'bench_media');
  await migrateOnly(url);
  const app = await startSignedInApp(url, { MESSAGING_API_KEY: key, MESSAGING_PROVIDER_URL: sim.url }).catch(async (error: unknown) => {
    await sim.close();
    throw error;
  });
  const { appUrl, serverPid, cookie, clientId } = app;
  try {
    await new Promise((r) => setTimeout(r, 1_000));
    report({ part: 'media', name: 'app RSS at rest', value: rssMb(serverPid), unit: 'MB' });

    /** Peak growth over the RSS just before, and the rate, of one transfer. */
    const measureOne = async (work: () => Promise<unknown>) => {
      const before = rssMb(serverPid);
      const { peak, seconds } = await peakRssDuring(serverPid, work);
      return { growth: peak - before, seconds };
    };
    const growth: Record<string, { growth: number; seconds: number }[]> = {};
    const record = (name: string, value: { growth: number; seconds: number }) => (growth[name] ??= []).push(value);
    for (const mb of sizes) {
      const bytes = mb * 1024 * 1024;
      const media = await sim.addMedia({ size: bytes, mimeType: 'application/pdf', fileName: 'bundle.pdf' });
      let storedId = 0;
      record(
        'downloaded from the provider into PostgreSQL',
        await measureOne(async () => {
          const body = JSON.stringify({
            entry: [
              {
                changes: [
                  {
                    field: 'messages',
                    value: {
                      messages: [
                        {
                          from: '447700900123',
                          id: `wamid.bench-big-${mb}`,
                          timestamp: String(Math.floor(Date.now() / 1000)),
                          type: 'document',
                          document: { id: media.id, mime_type: 'application/pdf', filename: 'bundle.pdf' },
                        },
                      ],
                    },
                  },
                ],
              },
            ],
          });
          await fetch(`${appUrl}/api/webhooks/chat`, {
            method: 'POST',
            body,
            headers: {
              'content-type': 'application/json',
              'x-service-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
            },
          });
          for (;;) {
            const [row] = await query<{ state: string; id: number }>(url, 'SELECT id, state FROM attachments ORDER BY id DESC LIMIT 1');
            if (row?.state === 'failed') throw new Error('the benchmark download failed');
            if (row?.state === 'stored') return void (storedId = row.id);
            await new Promise((r) => setTimeout(r, 50));
          }
        }),
      );
      record(
        'served to a browser (GET /api/media)',
        await measureOne(async () => {
          const res = await fetch(`${appUrl}/api/media/${storedId}`, { headers: { cookie } });
          let got = 0;
          const reader = res.body!.getReader();
          for (let part = await reader.read(); !part.done; part = await reader.read()) got += part.value.length;
          if (got !== bytes) throw new Error(`served ${got} bytes`);
        }),
      );
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), 'upload.pdf');
      let uploadedId = 0;
      record(
        'uploaded by a browser (POST /api/media)',
        await measureOne(async () => {
          const res = await fetch(`${appUrl}/api/media`, { method: 'POST', body: form, headers: { cookie } });
          if (res.status !== 200) throw new Error(`upload answered ${res.status}`);
          uploadedId = ((await res.json()) as { attachmentId: number }).attachmentId;
        }),
      );
      record(
        'sent to the provider (chat.send: multipart upload, then send by id)',
        await measureOne(async () => {
          const res = await fetch(`${appUrl}/trpc/chat.send`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', cookie },
            body: JSON.stringify({ json: { clientId, attachmentId: uploadedId } }),
          });
          if (res.status !== 200) throw new Error(`send answered ${res.status}: ${await res.text()}`);
        }),
      );
    }
    const [small, big] = sizes as [number, number];
    for (const [name, [atSmall, atBig]] of Object.entries(growth)) {
      report({
        part: 'media',
        name: `${name}: peak RSS growth at ${big} MB (at ${small} MB: ${atSmall!.growth.toFixed(0)} MB; ${(big / atBig!.seconds).toFixed(0)} MB/s)`,
        value: atBig!.growth,
        unit: 'MB',
        ceiling: big,
        ceilingName: 'file size',
        ratio: atBig!.growth / big,
        target: '≤ 0.5 (never holds half the file)',
        pass: atBig!.growth <= big / 2,
      });
    }
  } finally {
    await app.stop();
    await sim.close();
  }
}

async function benchExport(adminUrl: string) {
  // Two lengths in one process: an export held in memory would grow with the number of messages;
  // a streamed one grows by about the same at both.
  const lengths = QUICK ? [1_000, 5_000] : [1_000, 10_000];
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
            const reader = res.body!.getReader();
            for (let part = await reader.read(); !part.done; part = await reader.read()) got += part.value.length;
            return got;
          } finally {
            exporting = false;
            await probing;
          }
        });
        (results[format] ??= []).push({ growth: peak - before, seconds, bytes });
        report({
          part: 'export',
          name: `${format.toUpperCase()} of ${length.toLocaleString('en-GB')} messages (${(bytes / 1024 / 1024).toFixed(1)} MB, ${Math.round(length / seconds)} messages/s; peak RSS growth ${(peak - before).toFixed(0)} MB)`,
          value: seconds,
          unit: 's',
        });
        if (length === lengths[1]) {
          const slowest = Math.max(...healthWaits);
          report({
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
      report({
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

async function benchLoad(adminUrl: string) {
  const seconds = QUICK ? 3 : 30;
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
  report({ part: 'load', name: `requests/s (p50 ${result.p50} ms)`, value: result.rps, unit: 'req/s' });
  report({ part: 'load', name: 'p99 latency', value: result.p99, unit: 'ms' });
  report({
    part: 'load',
    name: 'non-2xx or errors (503 would mean pool exhaustion)',
    value: result.non2xx + result.errors,
    unit: 'responses',
    target: '= 0',
    pass: result.non2xx + result.errors === 0,
  });
  report({
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
  report({
    part: 'load',
    name: 'records whose status went back below a read receipt',
    value: counts!.regressed,
    unit: 'records',
    target: '= 0',
    pass: counts!.regressed === 0,
  });
}

async function benchReceipts(adminUrl: string) {
  const n = SCALE.receipts;
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
  report({
    part: 'receipts',
    name: `${n} receipts in one webhook (HTTP included; median of 7), updated ${answer.updated}`,
    value: batchMs,
    unit: 'ms',
  });
  report({ part: 'receipts', name: `${n} receipts one statement at a time (median of 3)`, value: singleMs, unit: 'ms' });
  report({
    part: 'receipts',
    name: 'speed-up of the set-based batch',
    value: singleMs / batchMs,
    unit: '×',
    target: '≥ 20',
    pass: singleMs / batchMs >= 20 && answer.updated === n,
  });
}

async function benchQueries(adminUrl: string) {
  console.log(`\n== 3. Queries at scale: ${SCALE.clients} clients, ${SCALE.communications} communications, ${SCALE.calls} calls each`);
  const url = await createDatabase(adminUrl, 'bench_scale');
  const database = await openDatabase(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'warn' }), logger);
  const sequelize = database.sequelize;
  const t0 = performance.now();
  // A plain connection: the app's pool has a 5 s statement_timeout, meant for requests, not bulk loads.
  await query(
    url,
    `
    INSERT INTO clients (name) SELECT 'Client ' || g FROM generate_series(1, ${SCALE.clients}) g;
    INSERT INTO client_numbers (client_id, digits, "primary") SELECT g, '447' || lpad(g::text, 9, '0'), true FROM generate_series(1, ${SCALE.clients}) g;
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
           CASE WHEN g % 20 = 0 THEN NULL ELSE 1 + (g::bigint * 7919) % ${SCALE.clients} END,
           '447' || lpad((CASE WHEN g % 20 = 0 THEN 900000000 + g % 5000 ELSE 1 + (g::bigint * 7919) % ${SCALE.clients} END)::text, 9, '0'),
           CASE WHEN g % 10 < 7 THEN jsonb_build_object('chat_msg_id', 'wamid.s-' || g) ELSE '{}'::jsonb END,
           now() - (${SCALE.communications} - g) * interval '1 second',
           CASE WHEN g % 7 = 0 THEN NULL ELSE now() END
    FROM generate_series(1, ${SCALE.communications}) g;
    ALTER TABLE communications ENABLE TRIGGER communications_chat_threads_insert;
    ${REBUILD_CHAT_THREADS_SQL}
    ANALYZE;
  `,
  );
  report({
    part: 'queries',
    name: 'seeding (multi-row INSERT … SELECT, summary rebuild, ANALYZE)',
    value: (performance.now() - t0) / 1000,
    unit: 's',
  });

  const caller = createCallerFactory(appRouter)(
    createContextInner({
      deps: {
        config: loadConfig({ DATABASE_URL: url }),
        logger,
        sequelize,
        events: { publishQuietly: () => undefined } as never,
        liveStreams: {} as never,
        provider: null,
        signInLimiter: new SignInLimiter(sequelize),
        mediaStore: new PostgresMediaStore(sequelize),
        now: () => new Date(),
      },
      user: { id: 1, name: 'Bench', email: 'bench@firm.test', role: 'staff' },
    }),
  );
  const random = (max: number) => 1 + Math.floor(Math.random() * max);
  const measure = async (name: string, targetMs: number, fn: () => Promise<unknown>, explain?: () => Promise<string>) => {
    for (let i = 0; i < 20; i++) await fn(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < SCALE.calls; i++) {
      const t = performance.now();
      await fn();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const p95 = percentile(times, 95);
    report({
      part: 'queries',
      name: `${name} p95 (p50 ${percentile(times, 50).toFixed(2)} ms)`,
      value: p95,
      unit: 'ms',
      ceiling: targetMs,
      ceilingName: 'target',
      ratio: p95 / targetMs,
      target: `≤ ${targetMs} ms`,
      pass: p95 <= targetMs,
    });
    if (p95 > targetMs && explain) console.log(await explain());
  };
  const plan = (sql: string, bind: unknown[]) => async () =>
    (await sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN ANALYZE ${sql}`, { bind, type: QueryTypes.SELECT }))
      .map((r) => r['QUERY PLAN'])
      .join('\n');

  await measure('inbox.thread (random client)', 5, () => caller.inbox.thread({ clientId: random(SCALE.clients) }));
  const receiptSql = "SELECT id, status FROM communications WHERE metadata->>'chat_msg_id' = $1";
  await measure(
    'receipt lookup by chat_msg_id',
    5,
    () => sequelize.query(receiptSql, { bind: [`wamid.s-${random(SCALE.communications)}`] }),
    plan(receiptSql, ['wamid.s-1']),
  );
  const matchSql = `SELECT ${matchOneClientSql('$1::text')} AS id`; // the rule the app runs
  await measure(
    'client match (exact number, else last 9 digits)',
    5,
    () => sequelize.query(matchSql, { bind: [`447${String(random(SCALE.clients)).padStart(9, '0')}`] }),
    plan(matchSql, ['447000000001']),
  );
  await measure('inbox.threads (first page)', 20, () => caller.inbox.threads());
  for (const filter of ['unread', 'unlinked', 'awaiting_reply'] as const) {
    await measure(`inbox.threads filter ${filter} (first page)`, 20, () => caller.inbox.threads({ filter }));
  }
  const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;
  const COMMON = ['invoice', 'hearing', 'contract', 'deposit', 'tenancy', 'landlord', 'mortgage', 'settlement', 'witness', 'court'];
  const SECOND = ['bundle', 'deadline', 'meeting', 'payment', 'lease', 'tribunal', 'survey', 'notice', 'receipt', 'keys'];
  await measure('inbox.search one common word (5% of records)', 20, () => caller.inbox.search({ q: pick(COMMON) }));
  await measure('inbox.search two words (0.1% of records)', 20, () => caller.inbox.search({ q: `${pick(COMMON)} ${pick(SECOND)}` }));
  await measure('inbox.search a phrase', 20, () => caller.inbox.search({ q: `"${pick(COMMON)} about the ${pick(SECOND)}"` }));
  await measure('inbox.search a reference (one record)', 20, () => caller.inbox.search({ q: `R${random(SCALE.communications)}` }));
  // Last: its 20,000 records get the newest ids, which search walks first.
  await benchLongHistory(url, sequelize, caller, measure);
  await database.close();
}

/**
 * Long histories (issue 16): one client with 20,000 chat messages (and notes) among the million,
 * paged as the SPA pages them — the first page and the 50th of the thread, of the client's
 * timeline and of the inbox, 50 a page each. EXPLAIN ANALYZE printed for a miss.
 */
async function benchLongHistory(
  url: string,
  sequelize: Sequelize,
  caller: ReturnType<typeof appRouter.createCaller>,
  measure: (name: string, targetMs: number, fn: () => Promise<unknown>, explain?: () => Promise<string>) => Promise<void>,
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
  report({
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
  const explain =
    ({ sql, bind }: { sql: string; bind: unknown[] }) =>
    async () =>
      (await sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN ANALYZE ${sql}`, { bind, type: QueryTypes.SELECT }))
        .map((r) => r['QUERY PLAN'])
        .join('\n');

  const PAGE = 50; // as the SPA asks (client/src/lib/thread-pages.ts, older-pages.ts)
  const threadScope = { column: 'client_id' as const, id: clientId, chatOnly: true };
  const threadAt50 = await cursorOfPage(50, async (before) => (await caller.inbox.thread({ clientId, before, limit: PAGE })).nextBefore);
  await measure(
    'long thread, first page (50)',
    5,
    () => caller.inbox.thread({ clientId, limit: PAGE }),
    explain(recordPageQuery(threadScope, { limit: PAGE })),
  );
  await measure(
    'long thread, 50th page',
    5,
    () => caller.inbox.thread({ clientId, before: threadAt50, limit: PAGE }),
    explain(recordPageQuery(threadScope, { cursor: threadAt50, limit: PAGE })),
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
    explain(recordPageQuery(timelineScope, { limit: PAGE })),
  );
  await measure(
    'long timeline, 50th page',
    5,
    () => caller.timeline.client({ clientId, cursor: timelineAt50, limit: PAGE }),
    explain(recordPageQuery(timelineScope, { cursor: timelineAt50, limit: PAGE })),
  );

  const inboxAt50 = await cursorOfPage(50, async (cursor) => (await caller.inbox.threads({ cursor })).nextCursor);
  await measure('inbox, first page (50)', 5, () => caller.inbox.threads(), explain(threadsPageQuery({})));
  await measure('inbox, 50th page', 5, () => caller.inbox.threads({ cursor: inboxAt50 }), explain(threadsPageQuery({ cursor: inboxAt50 })));
}

async function benchBundle() {
  console.log('\n== 4. Client bundle (production build)');
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
  const dist = path.join(ROOT, 'dist/client');
  const html = await readFile(path.join(dist, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(js|css))"/g)].map((m) => ({ file: m[1]!, kind: m[2]! }));
  for (const kind of ['js', 'css']) {
    let raw = 0;
    let gzip = 0;
    for (const f of files.filter((x) => x.kind === kind)) {
      const content = await readFile(path.join(dist, f.file));
      raw += content.length;
      gzip += gzipSync(content, { level: 9 }).length;
    }
    report({
      part: 'bundle',
      name: `initial ${kind.toUpperCase()} (raw ${(raw / 1024).toFixed(1)} KB)`,
      value: gzip / 1024,
      unit: 'KB gzip',
      ...(kind === 'js'
        ? { ceiling: 120, ceilingName: 'target', ratio: gzip / 1024 / 120, target: '≤ 120 KB gzip', pass: gzip / 1024 <= 120 }
        : {}),
    });
  }
}

async function benchStartup() {
  console.log('\n== 5. Start-up with an existing embedded data dir (npm start → /api/health)');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-bench-start-'));
  await chmod(dataDir, 0o755);
  const port = await findFreePort();
  const env = { DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: '', LOG_LEVEL: 'warn', MESSAGING_API_KEY: '' };
  const first = await startProcess(TSX, ['server/scripts/start.ts'], env, `http://127.0.0.1:${port}/api/health`);
  await first.stop();
  const second = await startProcess(TSX, ['server/scripts/start.ts'], env, `http://127.0.0.1:${port}/api/health`);
  await second.stop();
  await rm(dataDir, { recursive: true, force: true });
  report({ part: 'startup', name: 'first start (initdb, migrations, demo seed)', value: first.ms, unit: 'ms' });
  report({ part: 'startup', name: 'start with an existing data dir', value: second.ms, unit: 'ms' });
}

async function main() {
  const started = performance.now();
  console.log(
    `Firm Chat benchmark${QUICK ? ' (quick)' : ''} — ${new Date().toISOString()} — ${os.cpus().length} cores, node ${process.version}`,
  );
  let stopPg: (() => Promise<void>) | undefined;
  let adminUrl = process.env.DATABASE_URL;
  let dataDir: string | undefined;
  if (!adminUrl) {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-bench-'));
    await chmod(dataDir, 0o755);
    const embedded = await startEmbeddedPostgres(dataDir, logger, { persistent: false });
    adminUrl = embedded.url();
    stopPg = () => embedded.stop();
  }
  try {
    if (runs('ingest')) await benchIngest(adminUrl);
    if (runs('receipts')) await benchReceipts(adminUrl);
    if (runs('queries')) await benchQueries(adminUrl);
    if (runs('bundle')) await benchBundle();
    if (runs('startup')) await benchStartup();
    if (runs('load')) await benchLoad(adminUrl);
    if (runs('media')) await benchMedia(adminUrl);
    if (runs('export')) await benchExport(adminUrl);
    if (runs('live')) await benchLive(adminUrl, { quick: QUICK, report, migrateOnly, rssMb });
  } finally {
    await stopPg?.();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
  const missed = figures.filter((f) => f.pass === false);
  console.log(
    `\n${figures.filter((f) => f.target).length - missed.length} targets met, ${missed.length} missed; ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  for (const f of missed) console.log(`  MISSED: ${f.part} | ${f.name}`);
  const dir = path.join(ROOT, 'bench/results');
  await mkdir(dir, { recursive: true });
  const result = JSON.stringify({ date: new Date().toISOString(), quick: QUICK, cores: os.cpus().length, figures }, null, 2);
  await writeFile(path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}${QUICK ? '-quick' : ''}.json`), result);
  await writeFile(path.join(dir, `latest${QUICK ? '-quick' : ''}.json`), result);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
