import pg from 'pg';
import { findFreePort } from '../../../server/core/db/embedded-postgres';
import { migrateOnly, startApp, TSX } from '../app-under-test';
import {
  bodyOf,
  createDatabase,
  createDeliveryFactory,
  loadWebhook,
  MEDIA_RATE,
  query,
  SECRET,
  startProcess,
  type TBenchDelivery,
  type TBenchTools,
  type TLoadResult,
} from '../bench-support';

/** FIRM_PHONE's default, number 1 (the app under test sets none). */
const FIRM_DIGITS = '442079460000';

// Part 1, webhook ingest: the app's deliveries per second against two floors on the same database
// and schema: the db ceiling (bare INSERTs from a pool, no HTTP) and the minimal server
// (minimal-server.ts: the HMAC check and one INSERT), and that every answered id is stored once.

export async function benchIngest(adminUrl: string, tools: TBenchTools) {
  const { scale } = tools;
  console.log(
    `\n== 1. Webhook ingest: ${scale.connections} connections, ${scale.seconds} s each (two interleaved rounds), 20% duplicate deliveries, ${MEDIA_RATE * 100}% photos`,
  );
  // (a) db ceiling: bare INSERT … ON CONFLICT DO NOTHING from a pool at the same concurrency, in
  // rounds between the others' (below): it is bound by the disk's flushes, which swing most of all.
  const ceilingUrl = await createDatabase(adminUrl, 'bench_ceiling');
  await migrateOnly(ceilingUrl);
  const pool = new pg.Pool({ connectionString: ceilingUrl, max: scale.connections });
  const factory = createDeliveryFactory(0.2);

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
    await pool.end();
    throw error;
  });
  const oneNumberRounds: TLoadResult[] = [];
  const threeNumberRounds: TLoadResult[] = [];
  const load = { connections: scale.connections, seconds: scale.seconds / 2, duplicateRate: 0.2 };
  // Interleaved rounds (ceiling, minimal, app, ceiling, minimal, app) so drift in the machine's load hits all three alike.
  const interleaved = async () => {
    const rounds = { ceiling: [] as number[], minimal: [] as TLoadResult[], app: [] as TLoadResult[] };
    for (let round = 0; round < 2; round++) {
      rounds.ceiling.push(await loadCeiling(pool, factory, load));
      rounds.minimal.push(await loadWebhook(`http://127.0.0.1:${minimalPort}/`, load));
      rounds.app.push(await loadWebhook(`${app.url}/api/webhooks/chat`, load));
    }
    return rounds;
  };
  let disk: Awaited<ReturnType<typeof interleaved>>;
  let noWait: Awaited<ReturnType<typeof interleaved>> | null;
  try {
    disk = await interleaved();
    // The same three with commits not waiting for the disk: on a slow disk the floors' one commit per
    // row is the disk's speed, not the work's; this way all three are bound by the processors alone.
    noWait = await withoutWaitingForDisk(adminUrl, interleaved);
    // Several numbers (server/numbers/README.md "Several numbers"): the same load naming one number, or
    // three in turn, interleaved; the route step reads the firm's numbers (kept between changes).
    await query(appUrl, `INSERT INTO firm_numbers (digits, label) VALUES ('441134960222', 'Leeds'), ('441614960333', 'Manchester')`);
    for (let round = 0; round < 2; round++) {
      oneNumberRounds.push(await loadWebhook(`${app.url}/api/webhooks/chat`, { ...load, firmNumbers: [FIRM_DIGITS] }));
      threeNumberRounds.push(
        await loadWebhook(`${app.url}/api/webhooks/chat`, { ...load, firmNumbers: [FIRM_DIGITS, '441134960222', '441614960333'] }),
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await app.stop();
    await minimal.stop();
    await pool.end();
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const appResult = combineRounds(disk.app);
  const noWaitApp = noWait ? combineRounds(noWait.app) : null;
  const oneNumber = combineRounds(oneNumberRounds);
  const threeNumbers = combineRounds(threeNumberRounds);
  // Every round's ids are its own (each load makes its own), so the stored checks count them all.
  const acked = appResult.acked + oneNumber.acked + threeNumbers.acked + (noWaitApp?.acked ?? 0);
  const sent = appResult.sent + oneNumber.sent + threeNumbers.sent + (noWaitApp?.sent ?? 0);
  const [counts] = await query<{ rows: number; acked: number; photos: number; files: number }>(
    appUrl,
    `SELECT count(*)::int AS rows, count(*) FILTER (WHERE metadata->>'chat_msg_id' = ANY($1::text[]))::int AS acked,
            count(*) FILTER (WHERE metadata->>'kind' = 'image')::int AS photos, (SELECT count(*)::int FROM attachments) AS files
     FROM communications WHERE metadata->>'chat_msg_id' LIKE 'wamid.bench-%'`,
    [[...appResult.ackedIds, ...oneNumber.ackedIds, ...threeNumbers.ackedIds, ...(noWaitApp?.ackedIds ?? [])]],
  );
  const [spread] = await query<{ numbers: number }>(
    appUrl,
    `SELECT count(DISTINCT firm_number_id)::int AS numbers FROM communications WHERE metadata->>'chat_msg_id' = ANY($1::text[])`,
    [threeNumbers.ackedIds],
  );

  reportAgainstFloors(tools, '', { ceilingRps: mean(disk.ceiling), minimal: combineRounds(disk.minimal), app: appResult });
  if (noWait && noWaitApp)
    reportAgainstFloors(tools, ', commits not waiting for the disk', {
      ceilingRps: mean(noWait.ceiling),
      minimal: combineRounds(noWait.minimal),
      app: noWaitApp,
    });
  tools.report({
    part: 'ingest',
    name: 'app deliveries/s, three numbers vs one',
    value: threeNumbers.rps,
    unit: `deliveries/s (${spread!.numbers} numbers stored)`,
    ceiling: oneNumber.rps,
    ceilingName: 'one number',
    ratio: threeNumbers.rps / Math.max(oneNumber.rps, 1),
    target: '≥ 0.9',
    pass: threeNumbers.rps >= 0.9 * oneNumber.rps && spread!.numbers === 3,
  });
  tools.report({
    part: 'ingest',
    name: 'app non-2xx',
    value: appResult.non2xx + appResult.errors,
    unit: 'responses',
    target: '= 0',
    pass: appResult.non2xx + appResult.errors === 0,
  });
  // Every id answered 2xx must be stored exactly once (the unique index makes "once" structural);
  // requests still in flight when the load stopped may be stored without their answer being seen.
  tools.report({
    part: 'ingest',
    name: 'answered ids found stored',
    value: counts!.acked,
    unit: 'ids',
    ceiling: acked,
    ceilingName: 'distinct ids answered 2xx',
    ratio: counts!.acked / Math.max(acked, 1),
    target: '= 1.0',
    pass: counts!.acked === acked,
  });
  tools.report({
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
  tools.report({
    part: 'ingest',
    name: 'rows stored vs distinct ids sent',
    value: counts!.rows,
    unit: 'rows',
    ceiling: sent,
    ceilingName: 'distinct ids sent',
    ratio: counts!.rows / Math.max(sent, 1),
    target: 'between answered and sent',
    pass: counts!.rows >= acked && counts!.rows <= sent,
  });
}

/** The app against the two floors measured in the same rounds; `how` names the rounds' setting. */
function reportAgainstFloors(tools: TBenchTools, how: string, r: { ceilingRps: number; minimal: TLoadResult; app: TLoadResult }) {
  const { ceilingRps, minimal: minimalResult, app: appResult } = r;
  tools.report({ part: 'ingest', name: `db ceiling (pool INSERTs, no HTTP)${how}`, value: ceilingRps, unit: 'rows/s' });
  tools.report({ part: 'ingest', name: `minimal server${how}`, value: minimalResult.rps, unit: 'deliveries/s' });
  tools.report({
    part: 'ingest',
    name: `minimal server p50/p99${how}`,
    value: minimalResult.p99,
    unit: `ms p99 (p50 ${minimalResult.p50} ms)`,
  });
  tools.report({
    part: 'ingest',
    name: `app deliveries/s vs minimal server${how}`,
    value: appResult.rps,
    unit: 'deliveries/s',
    ceiling: minimalResult.rps,
    ceilingName: 'minimal',
    ratio: appResult.rps / minimalResult.rps,
    target: '≥ 1.0',
    pass: appResult.rps >= minimalResult.rps,
  });
  tools.report({
    part: 'ingest',
    name: `app deliveries/s vs db ceiling${how}`,
    value: appResult.rps,
    unit: 'deliveries/s',
    ceiling: ceilingRps,
    ceilingName: 'db ceiling',
    ratio: appResult.rps / ceilingRps,
    target: '≥ 0.8',
    pass: appResult.rps >= 0.8 * ceilingRps,
  });
  tools.report({
    part: 'ingest',
    name: `app p99 latency${how}`,
    value: appResult.p99,
    unit: `ms (p50 ${appResult.p50} ms)`,
    ceiling: minimalResult.p99,
    ceilingName: 'minimal p99',
    ratio: appResult.p99 / Math.max(minimalResult.p99, 1),
    target: '≤ minimal p99',
    pass: appResult.p99 <= minimalResult.p99,
  });
}

/** Rows a second from `connections` workers each INSERTing one delivery's message at a time. */
async function loadCeiling(
  pool: pg.Pool,
  factory: ReturnType<typeof createDeliveryFactory>,
  load: { connections: number; seconds: number },
) {
  let done = 0;
  const deadline = performance.now() + load.seconds * 1000;
  await Promise.all(
    Array.from({ length: load.connections }, async () => {
      while (performance.now() < deadline) {
        const d = factory.next();
        const message = (JSON.parse(d.body) as TBenchDelivery).entry[0].changes[0].value.messages[0];
        await pool.query(
          `INSERT INTO communications (type, direction, body, peer_phone, metadata) VALUES ('chat', 'inbound', $1, $2, jsonb_build_object('chat_msg_id', $3::text)) ON CONFLICT ((metadata->>'chat_msg_id')) DO NOTHING`,
          [bodyOf(message), message.from, message.id],
        );
        done++;
      }
    }),
  );
  return done / load.seconds;
}

/**
 * Runs `measure` with PostgreSQL's commits not waiting for the disk (synchronous_commit off, for every
 * session, as a reload sets it), then as before; a server the bench does not own is left alone (null).
 */
async function withoutWaitingForDisk<T>(adminUrl: string, measure: () => Promise<T>): Promise<T | null> {
  const [role] = await query<{ superuser: boolean }>(adminUrl, `SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`);
  if (!role?.superuser || process.env.DATABASE_URL) return null;
  await query(adminUrl, `ALTER SYSTEM SET synchronous_commit = off`);
  await query(adminUrl, `SELECT pg_reload_conf()`);
  try {
    return await measure();
  } finally {
    await query(adminUrl, `ALTER SYSTEM RESET synchronous_commit`);
    await query(adminUrl, `SELECT pg_reload_conf()`);
  }
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
