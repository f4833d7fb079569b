import pg from 'pg';
import { verifyAuditChain } from '../../../server/audit/audit-chain';
import { recordAuditEvent } from '../../../server/audit/record-audit-event';
import { hashPassword } from '../../../server/auth/password';
import { SignInLimiter } from '../../../server/auth/sign-in-limiter';
import { loadConfig } from '../../../server/core/config';
import { openDatabase } from '../../../server/core/db/open-database';
import { createSequelize } from '../../../server/core/db/sequelize';
import { PostgresMediaStore } from '../../../server/media/media-store';
import { createAppRouter } from '../../../server/app/app-router';
import { createContextInner } from '../../../server/trpc/context';
import { createCallerFactory } from '../../../server/trpc/init';
import { benchLogger, migrateOnly } from '../app-under-test';
import { bySize, createDatabase, percentile, query, type TBenchTools } from '../bench-support';
import { peakRssDuring, rssMb } from '../process-memory';
import { startRecordsApp } from './records-app';
import { benchBackup } from './records-backup';
import { benchRetention } from './records-retention';
import { appendEvents, linkNumber, OLD_RECORDS, oldClientsFor, seedFirm, seedTrail, TRAIL_STATEMENT } from './records-seed';

// Part 10, records (server/records/README.md "Records"): the hash-chained trail verified at a million events, what
// the chain costs the requests that append to it, retention destroying a hundred thousand records
// and their files while the server answers, and a backup and restore of the whole database. All on
// one database, seeded once (records-seed.ts); retention and backup are records-retention.ts and
// records-backup.ts.

export const BENCH_PASSWORD = 'bench-password-123';
/**
 * Verifying a million events: the check runs at about 100,000 events a second on two busy cores
 * (SHA-256 and the canonical text in JavaScript, batches of 5,000 by the id), so this leaves three
 * times that for a noisy machine while still catching a per-row query or an unbatched read.
 */
const VERIFY_SECONDS_PER_MILLION = 30;
const VERIFY_GROWTH_MB = 100;
/** The chain may cost a request at most half again its p95 without it. */
const CHAIN_RATIO = 1.5;
/** Alternating with and without the chain, so the machine's swings fall on both alike. */
const ROUNDS = 4;
const WARMUP = 5;
/** Concurrent callers appending at once (the head row's lock serialises their appends). */
const CONCURRENT = 20;
/** Sign-ins at once: the password check admits one hashing per core but one, and 16 waiting (server/auth/password.ts). */
const CONCURRENT_SIGN_INS = 16;

type TMode = 'chained' | 'unchained';
type TTimes = Record<TMode, number[]>;

export async function benchRecords(adminUrl: string, tools: TBenchTools) {
  const { scale } = tools;
  const events = scale.communications;
  const oldRecords = bySize(tools.size, OLD_RECORDS);
  const oldClients = oldClientsFor(oldRecords, scale.clients, scale.communications);
  const signIns = bySize(tools.size, { full: 100, quick: 10, smoke: 3 });
  const concurrentCalls = bySize(tools.size, { full: 200, quick: 40, smoke: 10 });
  const linkNumbers = 2 * (scale.calls + concurrentCalls) + 2 * ROUNDS * WARMUP * 2 + 100;
  console.log(
    `\n== 10. Records: ${scale.clients.toLocaleString('en-GB')} clients, ${scale.communications.toLocaleString('en-GB')} communications, a trail of ${events.toLocaleString('en-GB')} events; the chain's cost; retention; backup and restore`,
  );
  const url = await createDatabase(adminUrl, 'bench_records');
  await migrateOnly(url);
  const passwordHash = await hashPassword(BENCH_PASSWORD);
  // User 1 signs in and links; the director previews and approves retention (records-retention.ts).
  await query(
    url,
    `INSERT INTO users (email, name, role, password_hash) VALUES ('bench@firm.test', 'Bench', 'staff', $1), ('director@firm.test', 'Director', 'director', $1)`,
    [passwordHash],
  );
  const t0 = performance.now();
  await seedFirm(url, { clients: scale.clients, communications: scale.communications, oldClients }, linkNumbers);
  tools.report({
    part: 'records',
    name: `seeding the firm (clients, communications, cases; the first ${oldClients.toLocaleString('en-GB')} clients ${7} years old)`,
    value: (performance.now() - t0) / 1000,
    unit: 's',
  });

  const seconds = await seedTrail(url, events, scale.clients);
  tools.report({
    part: 'records',
    name: `trail: ${events.toLocaleString('en-GB')} events appended through the chain trigger, ${TRAIL_STATEMENT.toLocaleString('en-GB')} a statement (${Math.round(events / seconds).toLocaleString('en-GB')} events/s)`,
    value: seconds,
    unit: 's',
  });
  await query(url, 'VACUUM ANALYZE audit_events');
  await query(url, 'VACUUM ANALYZE audit_chain_head');

  const owner = new pg.Client({ connectionString: url });
  await owner.connect();
  const database = await openDatabase(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'warn' }), benchLogger);
  try {
    await benchStatementSize(owner, scale.clients, tools);
    await benchChainCost(owner, url, { signIns, links: scale.calls, concurrentCalls }, tools);

    // Last of the trail's figures: it also proves the rounds without the chain left it as it was.
    const verifier = createSequelize(url, benchLogger, { poolMax: 1, unbounded: true });
    try {
      const before = rssMb(process.pid);
      const { peak, seconds: verifySeconds, result } = await peakRssDuring(process.pid, () => verifyAuditChain(verifier));
      if (!result.ok) throw new Error(`the trail does not verify at #${result.firstBadId}: ${result.problem}`);
      const ceiling = (VERIFY_SECONDS_PER_MILLION * result.rows) / 1_000_000;
      tools.report({
        part: 'records',
        name: `trail: verifyAuditChain over ${result.rows.toLocaleString('en-GB')} events (${Math.round(result.rows / verifySeconds).toLocaleString('en-GB')} events/s; it verifies)`,
        value: verifySeconds,
        unit: 's',
        ceiling,
        ceilingName: `target (${VERIFY_SECONDS_PER_MILLION} s a million)`,
        ratio: verifySeconds / ceiling,
        target: `≤ ${VERIFY_SECONDS_PER_MILLION} s a million events`,
        pass: verifySeconds <= ceiling,
      });
      tools.report({
        part: 'records',
        name: `trail: the verifying process's (this one's) peak RSS growth (${before.toFixed(0)} MB before)`,
        value: peak - before,
        unit: 'MB',
        ceiling: VERIFY_GROWTH_MB,
        ceilingName: 'target',
        ratio: (peak - before) / VERIFY_GROWTH_MB,
        target: `≤ ${VERIFY_GROWTH_MB} MB (memory does not follow the trail's length)`,
        pass: peak - before <= VERIFY_GROWTH_MB,
      });
    } finally {
      await verifier.close();
    }
  } finally {
    await owner.end();
    await database.close();
  }

  const app = await startRecordsApp(url, 'director@firm.test', BENCH_PASSWORD);
  try {
    await benchRetention(url, app, { oldClients, oldFiles: bySize(tools.size, { full: 10_000, quick: 200, smoke: 20 }) }, tools);
    // Then ~1 GB of files (20 MB under --quick) on recent records, and the whole database backed up and restored.
    await benchBackup(adminUrl, url, app, { bigFiles: bySize(tools.size, { full: 1_000, quick: 20, smoke: 2 }) }, tools);
  } finally {
    await app.stop();
  }
}

/**
 * One statement appending 5,000 events (as the snooze timer's round does, server/ownership/
 * conversation-timers.ts) against statements of 1,000, per event. The head moves once per statement
 * (migration 0020); moved once per event, a transaction's own superseded versions of the head row
 * made a statement's cost grow with the square of its events, and this figure is what would show it.
 */
async function benchStatementSize(owner: pg.Client, clients: number, tools: TBenchTools) {
  const time = async (from: number, n: number) => {
    const t = performance.now();
    await appendEvents(owner, from, from + n - 1, clients);
    return (performance.now() - t) / n;
  };
  const small = [await time(1, 1_000)];
  const big = await time(1, 5_000);
  small.push(await time(1, 1_000));
  const perSmall = (small[0]! + small[1]!) / 2;
  tools.report({
    part: 'records',
    name: `trail: one statement appending 5,000 events, per event (${(big * 5).toFixed(1)} s for the statement; 1,000 a statement: ${(perSmall * 1000).toFixed(0)} µs an event)`,
    value: big * 1000,
    unit: 'µs',
    ceiling: perSmall * 1000,
    ceilingName: '1,000 a statement',
    ratio: big / perSmall,
    target: `≤ ${CHAIN_RATIO} (an event costs the same however many a transaction appends)`,
    pass: big / perSmall <= CHAIN_RATIO,
  });
}

const UNCHAIN_SQL = `ALTER TABLE audit_events DISABLE TRIGGER audit_events_chain, DISABLE TRIGGER audit_events_chain_head,
  ALTER COLUMN id SET DEFAULT nextval('audit_events_id_seq'),
  ALTER COLUMN prev_hash DROP NOT NULL, ALTER COLUMN hash DROP NOT NULL`;
// The unchained rows go again, as the owner, before the triggers are back: the chained rows never
// linked to them (the head was not moved meanwhile), so the trail verifies as if they had never been.
const RECHAIN_SQL = `BEGIN;
  ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only;
  DELETE FROM audit_events WHERE hash IS NULL;
  ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only, ENABLE TRIGGER audit_events_chain,
    ENABLE TRIGGER audit_events_chain_head, ALTER COLUMN id DROP DEFAULT,
    ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL;
  COMMIT`;

/**
 * What the chain costs the requests that append to it: the same procedures on the same database,
 * in alternate rounds with the chain trigger and without it (the trail as before migration 0020: an
 * id from the sequence, no hashes), as the owner switches it. Sequentially (p95 of each call), then
 * CONCURRENT at once, where every append waits for the head row's lock.
 */
async function benchChainCost(
  owner: pg.Client,
  url: string,
  counts: { signIns: number; links: number; concurrentCalls: number },
  tools: TBenchTools,
) {
  const [clients] = await query<{ recent: number }>(
    url,
    "SELECT min(id)::int AS recent FROM clients WHERE created_at > now() - interval '1 day'",
  );
  const limiter = new SignInLimiter({ perIp: 1_000_000_000, perAccount: 1_000_000_000 });
  const router = createAppRouter({
    config: loadConfig({ DATABASE_URL: url }),
    logger: benchLogger,
    events: { publishQuietly: () => undefined } as never,
    liveStreams: {} as never,
    numberRoutes: {} as never,
    provider: null,
    providerFor: () => Promise.resolve(null),
    signInLimiter: limiter,
    mediaStore: new PostgresMediaStore(),
    signingKey: {} as never,
    now: () => new Date(),
  });
  const caller = (user: { id: number; name: string; email: string; role: 'staff' | 'director' } | null) =>
    createCallerFactory(router)(createContextInner({ user, clientIp: '10.1.2.3' }));
  const anonymous = caller(null);
  const staff = caller({ id: 1, name: 'Bench', email: 'bench@firm.test', role: 'staff' });
  let nextNumber = 0;
  // Recent clients only: a number linked to one of the old clients would be activity that keeps it from retention.
  const link = () => staff.inbox.link({ phone: `+${linkNumber(nextNumber++)}`, clientId: clients!.recent + (nextNumber % 1000) });
  const signIn = () => anonymous.auth.signIn({ email: 'bench@firm.test', password: BENCH_PASSWORD });
  const append = () => recordAuditEvent({ actor: { userId: 1, ip: '10.1.2.3' }, action: 'auth.sign_in', subject: 'user:1' });

  console.log(
    `(with and without the chain in ${ROUNDS} alternate rounds: ${counts.signIns} sign-ins, ${counts.links} links and appends each way; then ${CONCURRENT} at once)`,
  );
  const cases: [string, () => Promise<unknown>, number, number][] = [
    ['auth.signIn (writes auth.sign_in; most of it is the scrypt password check)', signIn, counts.signIns, 1],
    ['inbox.link (writes inbox.link in its transaction)', link, counts.links, 1],
    ['one append alone (recordAuditEvent, no transaction)', append, counts.links, 1],
    [`auth.signIn, ${CONCURRENT_SIGN_INS} at once`, signIn, Math.max(counts.signIns, CONCURRENT_SIGN_INS * ROUNDS), CONCURRENT_SIGN_INS],
    [`inbox.link, ${CONCURRENT} at once`, link, counts.concurrentCalls, CONCURRENT],
    [`one append alone, ${CONCURRENT} at once`, append, counts.concurrentCalls, CONCURRENT],
  ];
  try {
    for (const [name, call, calls, concurrency] of cases) {
      const times = await alternate(owner, call, calls, concurrency);
      const p95 = { chained: percentile(times.chained, 95), unchained: percentile(times.unchained, 95) };
      const p50 = { chained: percentile(times.chained, 50), unchained: percentile(times.unchained, 50) };
      const ratio = p95.chained / p95.unchained;
      tools.report({
        part: 'records',
        name: `chain cost: ${name} p95 with the chain (p50 ${p50.chained.toFixed(2)} ms; without: p50 ${p50.unchained.toFixed(2)} ms)`,
        value: p95.chained,
        unit: 'ms',
        ceiling: p95.unchained,
        ceilingName: 'p95 without the chain',
        ratio,
        // A bare append is the chain's whole price (a hash and the head row), printed as the
        // denominator of the procedures' figures; the requests people wait for carry the target.
        ...(call === append ? {} : { target: `≤ ${CHAIN_RATIO}`, pass: ratio <= CHAIN_RATIO }),
      });
    }
  } finally {
    await owner.query(RECHAIN_SQL).catch(async (error: unknown) => {
      await owner.query('ROLLBACK').catch(() => undefined);
      throw error;
    });
  }
}

/** `calls` calls each way, `concurrency` at a time, in ROUNDS rounds alternating which way goes first. */
async function alternate(owner: pg.Client, call: () => Promise<unknown>, calls: number, concurrency: number): Promise<TTimes> {
  const times: TTimes = { chained: [], unchained: [] };
  const perRound = Math.ceil(calls / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    const order: TMode[] = round % 2 === 0 ? ['chained', 'unchained'] : ['unchained', 'chained'];
    for (const mode of order) {
      await owner.query(mode === 'chained' ? RECHAIN_SQL : UNCHAIN_SQL);
      for (let i = 0; i < WARMUP; i++) await call(); // the plans the ALTER invalidated, made again
      for (let done = 0; done < perRound; done += concurrency) {
        await Promise.all(
          Array.from({ length: Math.min(concurrency, perRound - done) }, async () => {
            const t = performance.now();
            await call();
            times[mode].push(performance.now() - t);
          }),
        );
      }
    }
  }
  await owner.query(RECHAIN_SQL);
  for (const mode of ['chained', 'unchained'] as const) times[mode].sort((a, b) => a - b);
  return times;
}
