import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setPasswordHashCost } from '../../server/auth/password';
import { startEmbeddedPostgres } from '../../server/core/db/embedded-postgres';
import { benchLogger, migrateOnly } from './app-under-test';
import { ROOT, type TBenchScale, type TBenchSize, type TBenchTools, type TFigure } from './bench-support';
import { benchLive } from './live-updates';
import { benchBundle } from './parts/bundle';
import { benchCourtBundle } from './parts/court-bundle';
import { benchDenials } from './parts/denials';
import { benchDownloads } from './parts/downloads';
import { benchExport } from './parts/export';
import { benchImports } from './parts/imports';
import { benchIngest } from './parts/ingest';
import { benchIngestParts } from './parts/ingest-parts';
import { benchLoad } from './parts/load';
import { benchMedia } from './parts/media';
import { benchQueries } from './parts/queries';
import { benchReceipts } from './parts/receipts';
import { benchRecords } from './parts/records';
import { benchScheduled } from './parts/scheduled';
import { benchStartup } from './parts/startup';
import { benchUnread } from './parts/unread';
import { rssMb } from './process-memory';

// npm run bench [-- --quick]: every figure with the ceiling it is compared with and the ratio.
// Ratios are measured inside one run on one machine: absolute numbers vary with the machine.
// Each part lives in parts/ (live updates in live-updates.ts); this file picks the parts, prints
// each figure as it comes, and writes the run's results to bench/results/.

// --smoke is CI's: every part's code path at the smallest sizes that still run it (its figures mean
// nothing); --quick a scaled-down run whose figures are indicative (tests/bench/README.md).
const SMOKE = process.argv.includes('--smoke');
const QUICK = SMOKE || process.argv.includes('--quick');
const SIZE: TBenchSize = SMOKE ? 'smoke' : QUICK ? 'quick' : 'full';
// --only=ingest,ingest-parts,receipts,queries,bundle,startup,load,media,export,live,records,scheduled,court,downloads,denials,unread,imports runs a subset (for iterating on one part).
const ONLY = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const runs = (part: string) => !ONLY || ONLY.includes(part);
const SCALE: TBenchScale = SMOKE
  ? { seconds: 1, connections: 5, receipts: 20, clients: 1_000, communications: 4_000, calls: 5 }
  : QUICK
    ? { seconds: 2, connections: 20, receipts: 100, clients: 5_000, communications: 20_000, calls: 30 }
    : {
        seconds: Number(process.env.BENCH_SECONDS ?? 20),
        connections: 50,
        receipts: 1_000,
        clients: 100_000,
        communications: 1_000_000,
        calls: 500,
      };
const figures: TFigure[] = [];

function report(figure: TFigure) {
  figures.push(figure);
  const parts = [`${figure.part} | ${figure.name}: ${formatNumber(figure.value)} ${figure.unit}`];
  if (figure.ceiling !== undefined) parts.push(`vs ${figure.ceilingName} ${formatNumber(figure.ceiling)} ${figure.unit}`);
  if (figure.ratio !== undefined) parts.push(`ratio ${figure.ratio.toFixed(2)}`);
  if (figure.target) parts.push(`target ${figure.target}: ${figure.pass ? 'MET' : 'MISSED'}`);
  console.log(parts.join(' | '));
}
const formatNumber = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2));

async function main() {
  const started = performance.now();
  // --quick: the bench's accounts hashed at a small scrypt cost. The same code path (a sign-in checks
  // at the cost written in its hash), without CI's minutes of ~100 ms checks queued one core at a time.
  if (QUICK) setPasswordHashCost({ N: 1024, r: 8, p: 1 });
  console.log(
    `Firm Chat benchmark${SIZE === 'full' ? '' : ` (${SIZE})`} — ${new Date().toISOString()} — ${os.cpus().length} cores, node ${process.version}`,
  );
  const tools: TBenchTools = { quick: QUICK, size: SIZE, scale: SCALE, report };
  let stopPg: (() => Promise<void>) | undefined;
  let adminUrl = process.env.DATABASE_URL;
  let dataDir: string | undefined;
  if (!adminUrl) {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-bench-'));
    await chmod(dataDir, 0o755);
    const embedded = await startEmbeddedPostgres(dataDir, benchLogger, { persistent: false });
    adminUrl = embedded.url();
    stopPg = () => embedded.stop();
  }
  try {
    if (runs('ingest')) await benchIngest(adminUrl, tools);
    if (runs('ingest-parts')) await benchIngestParts(adminUrl, tools);
    if (runs('receipts')) await benchReceipts(adminUrl, tools);
    if (runs('queries')) await benchQueries(adminUrl, tools);
    if (runs('bundle')) await benchBundle(tools);
    if (runs('startup')) await benchStartup(tools);
    if (runs('load')) await benchLoad(adminUrl, tools);
    if (runs('media')) await benchMedia(adminUrl, tools);
    if (runs('export')) await benchExport(adminUrl, tools);
    if (runs('live')) await benchLive(adminUrl, { quick: QUICK, size: SIZE, report, migrateOnly, rssMb });
    if (runs('records')) await benchRecords(adminUrl, tools);
    if (runs('scheduled')) await benchScheduled(adminUrl, tools);
    if (runs('court')) await benchCourtBundle(adminUrl, tools);
    if (runs('downloads')) await benchDownloads(adminUrl, tools);
    if (runs('denials')) await benchDenials(adminUrl, tools);
    if (runs('unread')) await benchUnread(adminUrl, tools);
    if (runs('imports')) await benchImports(adminUrl, tools);
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
  const result = JSON.stringify({ date: new Date().toISOString(), quick: QUICK, size: SIZE, cores: os.cpus().length, figures }, null, 2);
  await writeFile(path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}${SIZE === 'full' ? '' : `-${SIZE}`}.json`), result);
  await writeFile(path.join(dir, `latest${SIZE === 'full' ? '' : `-${SIZE}`}.json`), result);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
