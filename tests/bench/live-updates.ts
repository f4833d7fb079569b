import { fork } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SESSION_COOKIE, toSessionId } from '../../server/auth/sessions';
import { findFreePort } from '../../server/core/db/embedded-postgres';
import { bySize, createDatabase, percentile, query, ROOT, SECRET, startProcess, type TBenchSize, type TFigure } from './bench-support';
import type { TFromSubscribers, TToSubscribers } from './sse-subscribers';
import { liveNumbers, reportNumbersLive } from './live-numbers';
import { liveWalls, reportWalledLive, type TLiveWallPlan } from './live-walls';

// Live updates (npm run bench -- --only=live): N staff with the inbox open, each signed in with
// their own session and their own HTTP connection to the real tRPC subscription (inbox.onChange,
// SSE), while signed webhook deliveries arrive at a steady rate. For each delivery, the time from
// the webhook's 200 to its arrival at each subscriber; the server's CPU and memory, measured
// alone (the subscribers run in their own process, sse-subscribers.ts); events missed.
//
// Each subscriber count gets a fresh database and a fresh app process. For iterating:
//   BENCH_LIVE_SUBSCRIBERS=50,200  subscriber counts (full run 50,200,500; --quick 10)
//   BENCH_LIVE_SECONDS=5           seconds of deliveries per count (full run 10; --quick 2)
//   BENCH_LIVE_RATE=100            deliveries per second (full run 200; --quick 25)
//   BENCH_LIVE_VARIANTS=plain      which runs: plain (each count), walled, numbers (all three by default)
//
// Then the walled variant at the largest count (live-walls.ts): a third of the records are on
// restricted clients whose members are half the streams' people; every stream is checked for
// records it should not have got (leaks) and records it should have got and did not (missed).

const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const SESSION_SECRET = 'bench-session-secret-0123456789abcdef';
/** After the last delivery is answered, how long stragglers may still arrive. */
const STRAGGLER_MS = 5_000;
/** Linux reports a process's CPU time in clock ticks (USER_HZ), 100 a second. */
const CLOCK_TICKS = 100;
/** p99 from the webhook's 200 to a subscriber, at the largest count (the issue's target). */
const TARGET_P99_MS = 250;
const WARM_UP_DELIVERIES = 50;
/** Ends every delivery's marker, so that `…-1` is not found inside `…-12.` (a digit follows). */
const MARKER_END = '.';
/** In a walled run, how long after the last expected arrival a leak is still waited for. */
const LEAK_WAIT_MS = 1_000;

/** A variant of the run: what it seeds and expects; `name` tells its database apart; `leaks`: it hides records from some streams, so stragglers are waited for as leaks. */
export type TLiveWalls = { seed: (url: string, userIds: number[]) => Promise<TLiveWallPlan>; name?: string; leaks?: boolean };

export type TLiveTools = {
  quick: boolean;
  size: TBenchSize;
  report: (figure: TFigure) => void;
  migrateOnly: (url: string) => Promise<void>;
  rssMb: (pid: number) => number;
};

export type TLiveRun = Awaited<ReturnType<typeof measureLive>>;

/** Milliseconds since the epoch, comparable across processes (both sides use the same clock). */
const epochNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchLive(adminUrl: string, tools: TLiveTools) {
  const counts =
    process.env.BENCH_LIVE_SUBSCRIBERS?.split(',').map(Number) ?? bySize(tools.size, { full: [50, 200, 500], quick: [10], smoke: [3] });
  const rate = Number(process.env.BENCH_LIVE_RATE ?? bySize(tools.size, { full: 200, quick: 25, smoke: 10 }));
  const seconds = Number(process.env.BENCH_LIVE_SECONDS ?? bySize(tools.size, { full: 10, quick: 2, smoke: 1 }));
  console.log(
    `\n== 9. Live updates: ${counts.join(', ')} subscribers (inbox.onChange over SSE, each signed in on its own connection), ${rate} webhook deliveries/s for ${seconds} s; from each delivery's 200 to its arrival at each subscriber`,
  );
  const largest = Math.max(...counts);
  const variants = new Set(process.env.BENCH_LIVE_VARIANTS?.split(',') ?? ['plain', 'walled', 'numbers']);
  if (variants.has('plain'))
    for (const subscribers of counts) {
      reportLive(await measureLive(adminUrl, { subscribers, rate, seconds }, tools), subscribers === largest, tools.report);
    }
  if (variants.has('walled'))
    reportWalledLive(await measureLive(adminUrl, { subscribers: largest, rate, seconds }, tools, liveWalls), tools.report);
  // The same fan-out with the deliveries naming one firm number, then three in turn (live-numbers.ts).
  if (!variants.has('numbers')) return;
  const oneNumber = await measureLive(adminUrl, { subscribers: largest, rate, seconds }, tools, liveNumbers(1));
  reportNumbersLive(oneNumber, await measureLive(adminUrl, { subscribers: largest, rate, seconds }, tools, liveNumbers(3)), tools.report);
}

async function measureLive(
  adminUrl: string,
  load: { subscribers: number; rate: number; seconds: number },
  tools: TLiveTools,
  walls?: TLiveWalls,
) {
  const { subscribers, rate } = load;
  const deliveries = Math.round(rate * load.seconds);
  const url = await createDatabase(adminUrl, `bench_live_${subscribers}${walls ? `_${walls.name ?? 'walled'}` : ''}`);
  await tools.migrateOnly(url);
  const { cookies, userIds } = await addSignedInUsers(url, subscribers);
  // Without walls every stream may see every delivery, from a thousand numbers no client has.
  const plan: TLiveWallPlan = walls ? await walls.seed(url, userIds) : { fromOf: unlinkedNumber, hiddenFrom: () => false };
  const runId = randomBytes(4).toString('hex');
  const app = await startServer(url);
  const streams = await startSubscriberProcess().catch(async (error: unknown) => {
    await app.stop();
    throw error;
  });
  try {
    const webhookUrl = `${app.appUrl}/api/webhooks/chat`;
    // Warms the webhook path before anything is measured (the stream path warms within its first
    // deliveries, N streams at a time). Nobody is subscribed yet, and the prefix differs.
    await sendDeliveries(webhookUrl, {
      prefix: `Live bench warm-${runId}-`,
      count: WARM_UP_DELIVERIES,
      rate,
      fromOf: plan.fromOf,
      firmNumberOf: plan.firmNumberOf,
    });
    await sleep(1_000);
    const rssBefore = tools.rssMb(app.serverPid);

    const connectStarted = performance.now();
    await streams.ask(
      { type: 'open', url: `${app.appUrl}/trpc/inbox.onChange`, cookies, prefix: `Live bench ${runId}-`, end: MARKER_END, deliveries },
      'connected',
      120_000,
    );
    const connectMs = performance.now() - connectStarted;
    await sleep(500);
    const rssConnected = tools.rssMb(app.serverPid);
    // tRPC answers a refused session 200 and `connected`, then an error frame and the end: caught here.
    const settled = await streams.ask({ type: 'count' }, 'count', 10_000);
    if (settled.drops)
      throw new Error(`${settled.drops} of ${subscribers} streams ended once connected; the first's last words: ${settled.lastWords}`);

    // The measured window: from the first delivery until every expected arrival (or the straggler limit).
    let rssPeak = rssConnected;
    const rssSamples: { at: number; mb: number }[] = [];
    const sampler = setInterval(() => {
      const mb = tools.rssMb(app.serverPid);
      rssPeak = Math.max(rssPeak, mb);
      rssSamples.push({ at: performance.now(), mb });
    }, 50);
    const cpuStart = cpuSeconds(app.serverPid);
    const subscriberCpuStart = cpuSeconds(streams.pid);
    const windowStarted = performance.now();
    let sent: Awaited<ReturnType<typeof sendDeliveries>>;
    try {
      sent = await sendDeliveries(webhookUrl, {
        prefix: `Live bench ${runId}-`,
        count: deliveries,
        rate,
        fromOf: plan.fromOf,
        firmNumberOf: plan.firmNumberOf,
      });
      const expected = expectedArrivals(sent.answeredAt, subscribers, plan.hiddenFrom);
      const giveUpAt = performance.now() + STRAGGLER_MS;
      while ((await streams.ask({ type: 'count' }, 'count', 10_000)).arrived < expected && performance.now() < giveUpAt) await sleep(50);
      // A leak would arrive with the frames everyone got: a moment more for any still on its way.
      if (walls && walls.leaks !== false) await sleep(LEAK_WAIT_MS);
    } finally {
      clearInterval(sampler);
    }
    const windowSeconds = (performance.now() - windowStarted) / 1000;
    // A soak (a window of two minutes or more): the server's memory in its first minute against its last.
    const meanRss = (from: number, to: number) => {
      const inside = rssSamples.filter((sample) => sample.at >= from && sample.at < to).map((sample) => sample.mb);
      return inside.reduce((a, b) => a + b, 0) / Math.max(inside.length, 1);
    };
    const soak =
      windowSeconds >= 120
        ? { firstMinute: meanRss(windowStarted, windowStarted + 60_000), lastMinute: meanRss(performance.now() - 60_000, Infinity) }
        : null;
    const cpu = cpuSeconds(app.serverPid) - cpuStart;
    const subscriberCpu = cpuSeconds(streams.pid) - subscriberCpuStart;
    rssPeak = Math.max(rssPeak, tools.rssMb(app.serverPid));
    const result = await streams.ask({ type: 'collect' }, 'result', 30_000);
    return {
      ...load,
      deliveries,
      ...summariseArrivals(result, sent, plan.hiddenFrom),
      sent,
      connectMs,
      windowSeconds,
      cpu,
      subscriberCpu,
      subscriberLoopDelay: { p99: result.loopDelayP99Ms, max: result.loopDelayMaxMs },
      rssBefore,
      rssConnected,
      rssPeak,
      soak,
    };
  } finally {
    await streams.stop();
    await app.stop();
  }
}

/** (answered delivery, subscriber) pairs that should arrive: every pair but those the walls hide. */
function expectedArrivals(answeredAt: Float64Array, subscribers: number, hiddenFrom: (stream: number, n: number) => boolean): number {
  let expected = 0;
  for (let s = 0; s < subscribers; s++)
    for (let n = 0; n < answeredAt.length; n++) if (!Number.isNaN(answeredAt[n]!) && !hiddenFrom(s, n)) expected++;
  return expected;
}

/**
 * Latencies of every (answered delivery, subscriber) pair that arrived, from the webhook's 200 and
 * from the send (which includes the wait for the answer); the pairs that did not arrive. A pair the
 * walls hide (`hiddenFrom`) should not arrive: if it does it is a leak, never a latency.
 */
function summariseArrivals(
  result: Extract<TFromSubscribers, { type: 'result' }>,
  sent: { sentAt: Float64Array; answeredAt: Float64Array },
  hiddenFrom: (stream: number, n: number) => boolean,
) {
  const deliveries = sent.answeredAt.length;
  const latencies: number[] = [];
  const fromSend: number[] = [];
  let missed = 0;
  let beforeAnswer = 0;
  let subscribersMissing = 0;
  let hidden = 0;
  let leaks = 0;
  let subscribersLeaked = 0;
  for (let s = 0; s < result.resyncs.length; s++) {
    let missedHere = 0;
    let leakedHere = 0;
    for (let n = 0; n < deliveries; n++) {
      const answered = sent.answeredAt[n]!;
      if (Number.isNaN(answered)) continue; // not answered 2xx: counted as a failed delivery instead
      const arrived = result.arrivals[s * deliveries + n]!;
      if (hiddenFrom(s, n)) {
        hidden++;
        if (!Number.isNaN(arrived)) leakedHere++;
        continue;
      }
      if (Number.isNaN(arrived)) {
        missedHere++;
        continue;
      }
      // The NOTIFY fires on commit, so a stream can beat the webhook's own answer to the wire:
      // such an arrival counts as 0 ms (it was there by the time the provider heard "stored").
      if (arrived < answered) beforeAnswer++;
      latencies.push(Math.max(0, arrived - answered));
      fromSend.push(arrived - sent.sentAt[n]!);
    }
    missed += missedHere;
    if (missedHere) subscribersMissing++;
    leaks += leakedHere;
    if (leakedHere) subscribersLeaked++;
  }
  latencies.sort((a, b) => a - b);
  fromSend.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.length ? latencies[latencies.length - 1]! : NaN,
    fromSendP99: percentile(fromSend, 99),
    arrivals: latencies.length,
    beforeAnswer,
    missed,
    subscribersMissing,
    hidden,
    leaks,
    subscribersLeaked,
    resyncs: result.resyncs.reduce((a, b) => a + b, 0),
    drops: result.drops.reduce((a, b) => a + b, 0),
  };
}

function reportLive(run: TLiveRun, isLargest: boolean, report: (figure: TFigure) => void) {
  const part = 'live';
  const at = `${run.subscribers} subscribers`;
  const { sent } = run;
  // The answer's own time matters too: a saturated server answers late, and then "from the 200" looks short.
  report({
    part,
    name: `${at}: webhook deliveries not answered 2xx (of ${run.deliveries}${sent.failed ? `: ${sent.refusals}` : ''}; answered in p50 ${sent.answerP50.toFixed(0)} ms, p99 ${sent.answerP99.toFixed(0)} ms; sends up to ${sent.maxLateMs.toFixed(0)} ms behind schedule)`,
    value: sent.failed,
    unit: 'deliveries',
    target: '= 0',
    pass: sent.failed === 0,
  });
  const p99Target = isLargest
    ? {
        ceiling: TARGET_P99_MS,
        ceilingName: 'target',
        ratio: run.p99 / TARGET_P99_MS,
        target: `≤ ${TARGET_P99_MS} ms`,
        pass: run.p99 <= TARGET_P99_MS,
      }
    : {};
  report({
    part,
    name: `${at}: webhook 200 → subscriber p99 (p50 ${run.p50.toFixed(1)} ms, max ${run.max.toFixed(0)} ms; from the send p99 ${run.fromSendP99.toFixed(0)} ms; ${run.beforeAnswer} of ${run.arrivals} arrived before the 200, counted as 0)`,
    value: run.p99,
    unit: 'ms',
    ...p99Target,
  });
  const missedTarget = isLargest ? { target: '= 0', pass: run.missed === 0 } : {};
  report({
    part,
    name: `${at}: events missed (of ${run.arrivals + run.missed}; ${run.subscribersMissing} subscribers missed any; ${run.resyncs} resync frames, ${run.drops} dropped connections)`,
    value: run.missed,
    unit: 'events',
    ...missedTarget,
  });
  report({
    part,
    name: `${at}: server CPU over ${run.windowSeconds.toFixed(1)} s of deliveries (${((100 * run.cpu) / run.windowSeconds).toFixed(0)}% of one core; the subscribers' process ${((100 * run.subscriberCpu) / run.windowSeconds).toFixed(0)}%, its event-loop delay p99 ${run.subscriberLoopDelay.p99.toFixed(0)} ms, max ${run.subscriberLoopDelay.max.toFixed(0)} ms)`,
    value: run.cpu,
    unit: 's',
  });
  report({
    part,
    name: `${at}: server RSS peak during the deliveries (before subscribers ${run.rssBefore.toFixed(0)} MB, all connected ${run.rssConnected.toFixed(0)} MB in ${run.connectMs.toFixed(0)} ms)`,
    value: run.rssPeak,
    unit: 'MB',
  });
  if (run.soak)
    report({
      part,
      name: `${at}: server RSS over a ${run.windowSeconds.toFixed(0)} s soak, last minute's mean vs the first's (${run.soak.firstMinute.toFixed(0)} MB)`,
      value: run.soak.lastMinute,
      unit: 'MB',
      ceiling: run.soak.firstMinute,
      ceilingName: 'first minute',
      ratio: run.soak.lastMinute / run.soak.firstMinute,
      target: '≤ 1.1 (flat)',
      pass: run.soak.lastMinute <= 1.1 * run.soak.firstMinute,
    });
  const growth = run.rssConnected - run.rssBefore;
  report({
    part,
    name: `${at}: server RSS growth per subscriber (${growth.toFixed(1)} MB in all, ${(growth / run.subscribers).toFixed(3)} MB each)`,
    value: (growth * 1024) / run.subscribers,
    unit: 'KB',
  });
}

/** `n` staff, each with a session a day long, made in the database (the sign-in limiter would refuse hundreds of sign-ins); their cookies and ids, in the same order. */
async function addSignedInUsers(url: string, n: number): Promise<{ cookies: string[]; userIds: number[] }> {
  const users = await query<{ id: number }>(
    url,
    `INSERT INTO users (email, name, role, password_hash)
     SELECT 'live-' || g || '@bench.test', 'Live Subscriber ' || g, 'staff', 'no-password' FROM generate_series(1, $1::int) g
     RETURNING id`,
    [n],
  );
  const tokens = users.map(() => randomBytes(32).toString('base64url'));
  await query(
    url,
    `INSERT INTO sessions (id, user_id, expires_at) SELECT unnest($1::text[]), unnest($2::int[]), now() + interval '1 day'`,
    [tokens.map((token) => toSessionId(token, SESSION_SECRET)), users.map((user) => user.id)],
  );
  return { cookies: tokens.map((token) => `${SESSION_COOKIE}=${token}`), userIds: users.map((user) => user.id) };
}

/** The app as its own process, and the server's pid (tsx runs it as a child of its own). */
async function startServer(databaseUrl: string) {
  const port = await findFreePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    MESSAGING_WEBHOOK_SECRET: SECRET,
    SESSION_SECRET,
    LOG_LEVEL: 'warn',
    MESSAGING_API_KEY: '',
    NODE_ENV: 'production',
  };
  const prof = process.env.BENCH_PROF;
  const app = prof
    ? await startProcess(
        process.execPath,
        ['--cpu-prof', `--cpu-prof-dir=${prof}`, '--import', 'tsx', 'server/main.ts'],
        env,
        `${appUrl}/api/health`,
      )
    : await startProcess(TSX, ['server/main.ts'], env, `${appUrl}/api/health`);
  const serverPid = prof
    ? app.child.pid!
    : Number(readFileSync(`/proc/${app.child.pid}/task/${app.child.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
  if (!serverPid) {
    await app.stop();
    throw new Error('the server process (a child of tsx) was not found');
  }
  return { appUrl, serverPid, stop: app.stop };
}

/** sse-subscribers.ts as a child process, and a way to ask it things over IPC. */
async function startSubscriberProcess() {
  const child = fork(path.join(ROOT, 'tests/bench/sse-subscribers.ts'), [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  /** The next message of `type` within `ms`; a `failed` message or the process's exit rejects. */
  const receive = <T extends TFromSubscribers['type']>(type: T, ms: number) =>
    new Promise<Extract<TFromSubscribers, { type: T }>>((resolve, reject) => {
      const onMessage = (message: TFromSubscribers) => {
        if (message.type === 'failed') finish(() => reject(new Error(`a subscriber could not connect: ${message.error}`)));
        else if (message.type === type) finish(() => resolve(message as Extract<TFromSubscribers, { type: T }>));
      };
      const onExit = (code: number | null) => finish(() => reject(new Error(`the subscriber process exited (${code})`)));
      const timer = setTimeout(() => finish(() => reject(new Error(`the subscriber process sent no '${type}' within ${ms} ms`))), ms);
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        settle();
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
    });

  const ready = receive('ready', 60_000);
  const stop = async () => {
    if (child.connected) child.send({ type: 'close' } satisfies TToSubscribers);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await ready;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    pid: child.pid!,
    stop,
    ask: <T extends TFromSubscribers['type']>(message: TToSubscribers, type: T, ms: number) => {
      const answer = receive(type, ms);
      child.send(message);
      return answer;
    },
  };
}

/** Delivery `n`'s sender when no wall is measured: one of a thousand numbers no client has. */
export const unlinkedNumber = (n: number) => `4477008${String(n % 1000).padStart(5, '0')}`;

/**
 * `count` signed deliveries of one text message each (a new id, a body `<prefix><n>.`, a sender
 * `fromOf(n)`), sent `rate` a second on a timer without waiting for earlier answers;
 * when each was sent, and when it was answered 2xx (NaN: it was not).
 */
async function sendDeliveries(
  url: string,
  options: { prefix: string; count: number; rate: number; fromOf: (n: number) => string; firmNumberOf?: (n: number) => string },
) {
  const sentAt = new Float64Array(options.count).fill(NaN);
  const answeredAt = new Float64Array(options.count).fill(NaN);
  const answerMs: number[] = [];
  const refusals = new Map<string, number>(); // "503", "fetch failed", … → how many
  let maxLateMs = 0;
  const deliver = async (n: number) => {
    const from = options.fromOf(n);
    const message = {
      from,
      id: `wamid.live-${options.prefix.replace(/\W+/g, '-')}${n}`,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: 'text',
      text: { body: `${options.prefix}${n}${MARKER_END}` },
    };
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'BENCH',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                ...(options.firmNumberOf ? { metadata: { display_phone_number: options.firmNumberOf(n) } } : {}),
                contacts: [{ profile: { name: 'Live Bench' }, wa_id: from }],
                messages: [message],
              },
            },
          ],
        },
      ],
    });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    sentAt[n] = epochNow();
    let outcome: string;
    try {
      const res = await fetch(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-service-signature': signature },
      });
      const at = epochNow();
      answerMs.push(at - sentAt[n]);
      await res.arrayBuffer();
      if (res.ok) return void (answeredAt[n] = at);
      outcome = String(res.status);
    } catch (error) {
      // fetch's own message is "fetch failed": the socket's error says why (reset, refused, timed out).
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      outcome = `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
    }
    refusals.set(outcome, (refusals.get(outcome) ?? 0) + 1);
  };
  const inFlight: Promise<void>[] = [];
  const started = performance.now();
  for (let n = 0; n < options.count; n++) {
    const due = started + (n * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    maxLateMs = Math.max(maxLateMs, performance.now() - due);
    inFlight.push(deliver(n));
  }
  await Promise.all(inFlight);
  answerMs.sort((a, b) => a - b);
  const failed = [...refusals.values()].reduce((a, b) => a + b, 0);
  return {
    sentAt,
    answeredAt,
    failed,
    refusals: [...refusals].map(([what, count]) => `${count}× ${what}`).join(', '),
    maxLateMs,
    answerP50: percentile(answerMs, 50),
    answerP99: percentile(answerMs, 99),
  };
}

/** User and system CPU time a process has used, from /proc (Linux), in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After "pid (comm) ": field 3 (state) is at index 0, so utime (14) and stime (15) are at 11 and 12.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
