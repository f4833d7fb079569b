import { createSequelize } from '../../../server/core/db/sequelize';
import { bindDatabase } from '../../../server/core/db/db';
import { previewRetention } from '../../../server/records/retention-batches';
import { benchLogger } from '../app-under-test';
import { query, type TBenchTools } from '../bench-support';
import { reportHealthWaits, sampleHealth, type TRecordsApp } from './records-app';
import { seedFiles } from './records-seed';

// Retention (server/records/README.md "Records"): the old clients' records, cases and files, previewed and destroyed
// through the API by the director, the server's own worker erasing the batch in chunks, while a
// health check asked every 50 ms says how long the server keeps other requests waiting.

const FILE_KB = 10;
/** Previewing 100,000 records: a director waits for the list before approving it. */
const PREVIEW_SECONDS_PER_100K = 30;
/** Destroying 100,000 records and their files in the background. */
const DESTROY_SECONDS_PER_100K = 120;
const DONE_TIMEOUT_S = 900;
/** The server's default (RETENTION_YEARS); the old records are OLD_YEARS (7) old. */
const RETENTION_YEARS = 6;

type TPreview = { batchId: string; clients: number; cases: number; records: number; files: number; bytes: number };

export async function benchRetention(url: string, app: TRecordsApp, options: { oldClients: number; oldFiles: number }, tools: TBenchTools) {
  const t0 = performance.now();
  const seeded = await seedFiles(url, {
    count: options.oldFiles,
    chunks: 1,
    chunkKb: FILE_KB,
    where: `c.client_id <= ${options.oldClients}`,
    label: 'Old scan',
  });
  await query(url, 'ANALYZE attachments; ANALYZE attachment_chunks');
  tools.report({
    part: 'records',
    name: `retention: ${seeded.files.toLocaleString('en-GB')} files of ${FILE_KB} KB seeded on the old records (${(seeded.bytes / 1024 / 1024).toFixed(0)} MB)`,
    value: (performance.now() - t0) / 1000,
    unit: 's',
  });

  const trpc = async <T>(procedure: string, init: RequestInit = {}): Promise<T> => {
    const res = await fetch(`${app.appUrl}/trpc/${procedure}`, {
      ...init,
      headers: { 'content-type': 'application/json', cookie: app.cookie },
    });
    if (res.status !== 200) throw new Error(`${procedure} answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
  };

  const health = sampleHealth(app.appUrl);
  let previewSeconds: number;
  let destroySeconds: number;
  let preview: TPreview;
  let sampled: { waits: number[]; failed: number } | undefined;
  try {
    let t = performance.now();
    const answer = await trpc<TPreview>('retention.preview').catch((error: Error) => error);
    previewSeconds = (performance.now() - t) / 1000;
    if (answer instanceof Error) {
      // The request's pool gives up on any statement after 4.5 s (server/core/db/sequelize.ts's
      // query_timeout), whatever statement_timeout the preview sets for itself: said as a missed
      // figure, then the same preview is timed in this process on a pool without that bound.
      tools.report({
        part: 'records',
        name: `retention: retention.preview through the API FAILED after ${previewSeconds.toFixed(1)} s (${answer.message.slice(0, 60)}…)`,
        value: previewSeconds,
        unit: 's',
        target: 'answers',
        pass: false,
      });
      t = performance.now();
      preview = await previewUnbounded(url);
      previewSeconds = (performance.now() - t) / 1000;
    } else preview = answer;
    t = performance.now();
    await trpc('retention.destroy', { method: 'POST', body: JSON.stringify({ json: { batchId: preview.batchId } }) });
    for (;;) {
      const [batch] = await query<{ state: string }>(url, 'SELECT state FROM retention_batches WHERE id = $1', [preview.batchId]);
      if (batch?.state === 'done') break;
      if ((performance.now() - t) / 1000 > DONE_TIMEOUT_S) throw new Error(`the batch is still ${batch?.state} after ${DONE_TIMEOUT_S} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    destroySeconds = (performance.now() - t) / 1000;
  } finally {
    sampled = await health();
  }
  const { waits, failed } = sampled;
  const [result] = await query<{ records: number; files: number; cases: number; clients: number; left_out: number; chunks: number }>(
    url,
    `SELECT count(*) FILTER (WHERE kind = 'record' AND erased_at IS NOT NULL)::int AS records,
            count(*) FILTER (WHERE kind = 'file' AND erased_at IS NOT NULL)::int AS files,
            count(*) FILTER (WHERE kind = 'case' AND erased_at IS NOT NULL)::int AS cases,
            count(*) FILTER (WHERE kind = 'client' AND erased_at IS NOT NULL)::int AS clients,
            count(*) FILTER (WHERE left_out IS NOT NULL)::int AS left_out,
            (SELECT count(*) FROM attachment_chunks ch JOIN retention_items f ON f.batch_id = $1 AND f.kind = 'file' AND f.item_id = ch.attachment_id)::int AS chunks
     FROM retention_items WHERE batch_id = $1`,
    [preview.batchId],
  );
  const r = result!;
  // When each kind's chunks ran, from the approval: where the destruction spends its time.
  const phases = await query<{ kind: string; first: number; last: number; finished: number }>(
    url,
    `SELECT i.kind, extract(epoch FROM min(i.erased_at) - b.approved_at)::float AS first, extract(epoch FROM max(i.erased_at) - b.approved_at)::float AS last,
            extract(epoch FROM b.finished_at - b.approved_at)::float AS finished
     FROM retention_items i JOIN retention_batches b ON b.id = i.batch_id WHERE i.batch_id = $1 AND i.erased_at IS NOT NULL
     GROUP BY i.kind, b.approved_at, b.finished_at ORDER BY min(i.erased_at)`,
    [preview.batchId],
  );
  const phaseText = phases.map((p) => `${p.kind}s +${p.first.toFixed(1)}–${p.last.toFixed(1)} s`).join(', ');
  const per100k = preview.records / 100_000;
  const mb = (preview.bytes / 1024 / 1024).toFixed(0);
  const previewCeiling = PREVIEW_SECONDS_PER_100K * per100k;
  tools.report({
    part: 'records',
    name: `retention: retention.preview listing ${preview.records.toLocaleString('en-GB')} records, ${preview.files.toLocaleString('en-GB')} files (${mb} MB), ${preview.cases.toLocaleString('en-GB')} cases, ${preview.clients.toLocaleString('en-GB')} clients`,
    value: previewSeconds,
    unit: 's',
    ceiling: previewCeiling,
    ceilingName: `target (${PREVIEW_SECONDS_PER_100K} s per 100,000 records)`,
    ratio: previewSeconds / previewCeiling,
    target: `≤ ${PREVIEW_SECONDS_PER_100K} s per 100,000 records`,
    pass: previewSeconds <= previewCeiling,
  });
  const destroyCeiling = DESTROY_SECONDS_PER_100K * per100k;
  tools.report({
    part: 'records',
    name: `retention: from retention.destroy to the batch done, the server's worker (${Math.round(preview.records / destroySeconds).toLocaleString('en-GB')} records/s; chunks of ${phaseText}, done at +${(phases[0]?.finished ?? NaN).toFixed(1)} s)`,
    value: destroySeconds,
    unit: 's',
    ceiling: destroyCeiling,
    ceilingName: `target (${DESTROY_SECONDS_PER_100K} s per 100,000 records)`,
    ratio: destroySeconds / destroyCeiling,
    target: `≤ ${DESTROY_SECONDS_PER_100K} s per 100,000 records`,
    pass: destroySeconds <= destroyCeiling,
  });
  reportHealthWaits(tools, 'retention: /api/health p99 throughout preview and destruction', waits, failed);
  tools.report({
    part: 'records',
    name: `retention: erased as listed (records ${r.records.toLocaleString('en-GB')}, files ${r.files.toLocaleString('en-GB')}, cases ${r.cases}, clients ${r.clients}; ${r.left_out} left out) with the files' chunks left`,
    value: r.chunks,
    unit: 'chunks',
    target: '= 0 chunks, every listed item erased',
    pass:
      r.chunks === 0 &&
      r.left_out === 0 &&
      r.records === preview.records &&
      r.files === preview.files &&
      r.cases === preview.cases &&
      r.clients === preview.clients,
  });
}

/** The director's preview as the server makes it, in this process, on a pool with no client-side time limit. */
async function previewUnbounded(url: string): Promise<TPreview> {
  const sequelize = createSequelize(url, benchLogger, { unbounded: true });
  bindDatabase(sequelize);
  try {
    const [director] = await query<{ id: number }>(url, "SELECT id FROM users WHERE email = 'director@firm.test'");
    return await previewRetention({ id: director!.id, role: 'director', ip: null, path: 'bench' }, RETENTION_YEARS);
  } finally {
    await sequelize.close();
  }
}
