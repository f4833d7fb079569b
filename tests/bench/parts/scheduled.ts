import pg from 'pg';
import { startProviderSimulator, type ProviderSimulator } from '../../../server/dev/provider-sim/provider-simulator';
import { migrateOnly, startBenchServer } from '../app-under-test';
import { bySize, createDatabase, percentile, SECRET, type TBenchTools } from '../bench-support';
import { reportHealthWaits, sampleHealth } from './records-app';
import { cpuMsPerSend, describeCpu, sampleCpu } from './scheduled-cpu';
import { scheduleTexts, seedScheduledFirm, type TBatch } from './scheduled-seed';
import {
  countRecordsTwice,
  listNotSentReasons,
  readRecordLateness,
  stampAcceptances,
  tallyAcceptances,
  waitForBatch,
  type TAcceptances,
} from './scheduled-watch';

// Part 11, scheduled sends (server/messaging/README.md "Scheduled sends"): two app instances on one database, each
// polling the queue as the product runs it, each sending to a provider simulator of its own (so
// who sent what is seen from outside). First a burst: many sends due at the same moment, all to go
// within a minute and none twice. Then a steady stream due at 100 a second, each send's lateness
// measured from its due time to the moment the provider accepted it.

/** All of the burst sent within this many seconds of their time (server/messaging/README.md "Scheduled sends"). */
const BURST_SECONDS = 60;
/** A send goes within this many seconds of its time, at p99. */
const LATENESS_P99_S = 5;
/** `/api/health` p99 on an instance while it works through the burst, as the other parts ask. */
/** Seconds between scheduling a batch and its first due time: the INSERT is well done by then. */
const LEAD_SECONDS = 5;
/** Give up on a batch when nothing has moved for this long after it was due (no worker, or a stuck one). */
const STALL_MS = 30_000;
/** After a batch finishes, wait this long before counting, so that a late second send would be seen. */
const SETTLE_MS = 3_000;

const KEY = 'bench-provider-key';

export async function benchScheduled(adminUrl: string, tools: TBenchTools) {
  const burst = Number(process.env.BENCH_SCHEDULED_BURST ?? bySize(tools.size, { full: 10_000, quick: 200, smoke: 20 }));
  const rate = Number(process.env.BENCH_SCHEDULED_RATE ?? bySize(tools.size, { full: 100, quick: 100, smoke: 20 }));
  const seconds = Number(process.env.BENCH_SCHEDULED_SECONDS ?? bySize(tools.size, { full: 30, quick: 5, smoke: 1 }));
  const steady = rate * seconds;
  console.log(
    `\n== 11. Scheduled sends: two app instances on one database; ${burst.toLocaleString('en-GB')} due at the same moment, then ${rate}/s for ${seconds} s (${steady.toLocaleString('en-GB')}), each to a number of its own`,
  );
  const url = await createDatabase(adminUrl, 'bench_scheduled');
  await migrateOnly(url);
  const t0 = performance.now();
  const director = await seedScheduledFirm(url, burst + steady);
  console.log(
    `(seeded ${(burst + steady).toLocaleString('en-GB')} clients with a number and an inbound message each in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );

  const sims: ProviderSimulator[] = [];
  const stops: (() => Promise<void>)[] = [];
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    for (let i = 0; i < 2; i++) sims.push(await startProviderSimulator({ apiKey: KEY, webhookSecret: SECRET, autoReceipts: false }));
    const accepted = stampAcceptances(sims);
    // One after the other: each checks the migrations under their lock at start-up (migrateOnly ran them).
    const apps: string[] = [];
    const pids: number[] = [];
    for (const sim of sims) {
      const { app, appUrl, serverPid } = await startBenchServer(url, { MESSAGING_API_KEY: KEY, MESSAGING_PROVIDER_URL: sim.url });
      stops.push(app.stop);
      apps.push(appUrl);
      pids.push(serverPid);
    }

    const burstBatch = await scheduleTexts(url, { director, from: 1, count: burst, leadSeconds: LEAD_SECONDS, spacingMs: 0 });
    await measureBurst(db, burstBatch, accepted, { healthUrl: apps[0]!, pids }, tools);

    const steadyBatch = await scheduleTexts(url, {
      director,
      from: burst + 1,
      count: steady,
      leadSeconds: LEAD_SECONDS,
      spacingMs: 1000 / rate,
    });
    await measureSteady(db, steadyBatch, accepted, { rate, seconds, pids }, tools);

    // The whole part once more, both sides: a row sent again after its batch was counted shows here.
    const all: TBatch = { firstId: burstBatch.firstId, lastId: steadyBatch.lastId, rows: [...burstBatch.rows, ...steadyBatch.rows] };
    const tally = tallyAcceptances(all, accepted);
    const recordsTwice = await countRecordsTwice(db);
    tools.report({
      part: 'scheduled',
      name: `the whole part at its end (${all.rows.length.toLocaleString('en-GB')} rows): rows the provider got more than once (${tally.extraSends} extra sends); scheduled sends with more than one record: ${recordsTwice}`,
      value: tally.twice,
      unit: 'rows',
      target: '0 sent twice, by the provider and by the records',
      pass: tally.twice === 0 && recordsTwice === 0,
    });
  } finally {
    for (const stop of stops) await stop();
    for (const sim of sims) await sim.close();
    await db.end();
  }
}

async function measureBurst(
  db: pg.Client,
  batch: TBatch,
  accepted: TAcceptances,
  instances: { healthUrl: string; pids: number[] },
  tools: TBenchTools,
) {
  const dueMs = batch.rows[0]!.dueMs;
  const n = batch.rows.length;
  console.log(`(${n.toLocaleString('en-GB')} scheduled, due in ${((dueMs - Date.now()) / 1000).toFixed(1)} s)`);
  // The same instance idle until the burst is due: how long this machine makes a health check wait anyway.
  const stopIdleHealth = sampleHealth(instances.healthUrl, 50);
  await new Promise((r) => setTimeout(r, Math.max(0, dueMs - Date.now())));
  const idle = await stopIdleHealth();
  const stopHealth = sampleHealth(instances.healthUrl, 50);
  const stopCpu = await sampleCpu(db, instances.pids);
  const progress = logProgress(accepted, dueMs);
  const waited = await waitForBatch(db, batch, accepted, { dueMs, stallMs: STALL_MS, deadlineMs: dueMs + 5 * BURST_SECONDS * 1000 });
  clearInterval(progress);
  const cpu = await stopCpu();
  const health = await stopHealth();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  if (!waited.finished) console.log(`(the burst did not finish: ${waited.reason})`);

  const tally = tallyAcceptances(batch, accepted);
  const recordsTwice = await countRecordsTwice(db, batch);
  const { rows: states } = await db.query<{ state: string; n: string }>(
    'SELECT state, count(*) AS n FROM scheduled_sends WHERE id BETWEEN $1 AND $2 GROUP BY 1',
    [batch.firstId, batch.lastId],
  );
  const count = (state: string) => Number(states.find((s) => s.state === state)?.n ?? 0);
  const reasons = await listNotSentReasons(db, batch);
  // NaN when nothing was sent at all (the missing count says so).
  const lastS = tally.lastMs === -Infinity ? NaN : (tally.lastMs - dueMs) / 1000;
  const sentAll = tally.missing === 0;
  tools.report({
    part: 'scheduled',
    name: `burst: ${n.toLocaleString('en-GB')} due at the same moment on two instances, seconds from the due time to the last one the provider accepted${sentAll ? '' : ` (${tally.missing.toLocaleString('en-GB')} never sent)`}`,
    value: lastS,
    unit: 's',
    ceiling: BURST_SECONDS,
    ceilingName: 'target',
    ratio: lastS / BURST_SECONDS,
    target: `all sent ≤ ${BURST_SECONDS} s after their time`,
    pass: sentAll && lastS <= BURST_SECONDS,
  });
  reportOncePerRow(tools, 'burst', tally, recordsTwice);
  tools.report({
    part: 'scheduled',
    name: `burst: rows left not sent (queue states: sent ${count('sent').toLocaleString('en-GB')}, not_sent ${count('not_sent')}${reasons ? ` — ${reasons}` : ''}, still scheduled ${count('scheduled')})`,
    value: n - count('sent'),
    unit: 'rows',
    target: '0',
    pass: count('sent') === n,
  });
  const total = tally.share.reduce((a, b) => a + b, 0) || 1;
  const sent = n - tally.missing;
  tools.report({
    part: 'scheduled',
    name: `burst: the two instances' shares of the sends (${tally.share.map((s) => s.toLocaleString('en-GB')).join(' and ')})`,
    value: (100 * Math.min(...tally.share)) / total,
    unit: '% by the lesser',
  });
  tools.report({
    part: 'scheduled',
    name: `burst: where the time goes (${(sent / (cpu.seconds || 1)).toFixed(0)} sends/s) — ${describeCpu(cpu, sent)}`,
    value: cpuMsPerSend(cpu, sent),
    unit: 'ms CPU a send',
  });
  reportHealthWaits(
    tools,
    `burst: /api/health p99 on the first instance meanwhile (the same instance idle just before: p99 ${percentile(idle.waits, 99).toFixed(0)} ms)`,
    health.waits,
    health.failed,
    'scheduled',
  );
}

async function measureSteady(
  db: pg.Client,
  batch: TBatch,
  accepted: TAcceptances,
  shape: { rate: number; seconds: number; pids: number[] },
  tools: TBenchTools,
) {
  const firstDue = batch.rows[0]!.dueMs;
  const lastDue = batch.rows.at(-1)!.dueMs;
  console.log(
    `(${batch.rows.length.toLocaleString('en-GB')} scheduled, ${shape.rate}/s from ${((firstDue - Date.now()) / 1000).toFixed(1)} s from now)`,
  );
  await new Promise((r) => setTimeout(r, Math.max(0, firstDue - Date.now())));
  const stopCpu = await sampleCpu(db, shape.pids);
  const progress = logProgress(accepted, firstDue);
  const waited = await waitForBatch(db, batch, accepted, { dueMs: lastDue, stallMs: STALL_MS, deadlineMs: lastDue + 120_000 });
  clearInterval(progress);
  const cpu = await stopCpu();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  if (!waited.finished) console.log(`(the steady batch did not finish: ${waited.reason})`);

  const tally = tallyAcceptances(batch, accepted);
  const recordsTwice = await countRecordsTwice(db, batch);
  // A row never sent counts as infinitely late: missing sends cannot flatter the percentiles.
  const late = tally.lateness.map((ms) => (ms === null ? Infinity : ms / 1000)).sort((a, b) => a - b);
  const recordLate = (await readRecordLateness(db, batch)).map((ms) => ms / 1000);
  const p = (q: number) => percentile(late, q);
  tools.report({
    part: 'scheduled',
    name: `steady: ${batch.rows.length.toLocaleString('en-GB')} due at ${shape.rate}/s, lateness p99 (due time to the provider's acceptance; p50 ${p(50).toFixed(2)} s, max ${late.at(-1)!.toFixed(2)} s${tally.missing ? `, ${tally.missing} never sent` : ''}; record written: p50 ${percentile(recordLate, 50).toFixed(2)}, p99 ${percentile(recordLate, 99).toFixed(2)} s; shares ${tally.share.join(' and ')})`,
    value: p(99),
    unit: 's',
    ceiling: LATENESS_P99_S,
    ceilingName: 'target',
    ratio: p(99) / LATENESS_P99_S,
    target: `p99 ≤ ${LATENESS_P99_S} s`,
    pass: p(99) <= LATENESS_P99_S,
  });
  reportOncePerRow(tools, 'steady', tally, recordsTwice);
  tools.report({
    part: 'scheduled',
    name: `steady: where the time goes — ${describeCpu(cpu, batch.rows.length - tally.missing)}`,
    value: cpuMsPerSend(cpu, batch.rows.length - tally.missing),
    unit: 'ms CPU a send',
  });
}

/** Prints every 5 s how many the provider has accepted since `fromMs` (a long wait is seen to move, or not). */
function logProgress(accepted: TAcceptances, fromMs: number): NodeJS.Timeout {
  return setInterval(() => {
    const counts = accepted.bySim.map((bySim) => [...bySim.values()].reduce((n, times) => n + times.filter((t) => t >= fromMs).length, 0));
    console.log(`  +${((Date.now() - fromMs) / 1000).toFixed(0)} s: accepted ${counts.join(' + ')}`);
  }, 5_000);
}

/** A phase's sends per row, as the provider saw them and as the records say: the row of the figures that must be exactly one. */
function reportOncePerRow(tools: TBenchTools, phase: string, tally: ReturnType<typeof tallyAcceptances>, recordsTwice: number): void {
  tools.report({
    part: 'scheduled',
    name: `${phase}: sends the provider accepted per row — exactly one: ${tally.once.toLocaleString('en-GB')}, none: ${tally.missing.toLocaleString('en-GB')}, more than one: ${tally.twice} (${tally.extraSends} extra); records per row: ${recordsTwice} rows with more than one`,
    value: tally.twice,
    unit: 'rows sent twice',
    target: 'exactly 1 for every row',
    pass: tally.twice === 0 && recordsTwice === 0 && tally.missing === 0,
  });
}
