import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const SECRET = 'bench-webhook-secret';

export type TFigure = {
  part: string;
  name: string;
  value: number;
  unit: string;
  ceiling?: number;
  ceilingName?: string;
  ratio?: number;
  target?: string;
  pass?: boolean;
};

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Reports a call's times (sorted) as its p95 (p50 in the name) against a target in ms; returns the p95. */
export function reportP95(tools: TBenchTools, part: string, name: string, sorted: number[], targetMs: number): number {
  const p95 = percentile(sorted, 95);
  tools.report({
    part,
    name: `${name} p95 (p50 ${percentile(sorted, 50).toFixed(2)} ms)`,
    value: p95,
    unit: 'ms',
    ceiling: targetMs,
    ceilingName: 'target',
    ratio: p95 / targetMs,
    target: `≤ ${targetMs} ms`,
    pass: p95 <= targetMs,
  });
  return p95;
}

export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export { sql as query } from '../support/sql';

/** Starts a child process and waits until `url` answers (or the process prints `ready`). */
export async function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  readyUrl: string,
): Promise<{ child: ChildProcess; stop: () => Promise<void>; ms: number; output: () => string }> {
  const started = performance.now();
  let output = '';
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
    if (process.env.BENCH_DEBUG) process.stderr.write(c);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited:\n${output}`);
    const up = await fetch(readyUrl).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) break;
    if (performance.now() - started > 180_000) throw new Error(`${args.join(' ')} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const ms = performance.now() - started;
  return {
    child,
    ms,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Signed single-message cloud payloads; `duplicateRate` of them repeat an id already sent, and
 * `mediaRate` of the new ones are photos (a record and a file to download, as real traffic has).
 */
/**
 * `firmNumbers`: the firm's numbers deliveries are sent to, in turn (`metadata.display_phone_number`,
 * server/numbers/README.md "Several numbers"); none: no metadata, as the provider's on-premise shape.
 */
export function createDeliveryFactory(duplicateRate: number, mediaRate = MEDIA_RATE, firmNumbers: string[] = []) {
  const sentIds: string[] = [];
  const acked = new Set<string>();
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  return {
    acked,
    sentIds,
    next(): { id: string; body: string; signature: string } {
      const duplicate = sentIds.length > 0 && Math.random() < duplicateRate;
      const id = duplicate ? sentIds[Math.floor(Math.random() * sentIds.length)]! : `wamid.bench-${prefix}-${++n}`;
      if (!duplicate) sentIds.push(id);
      const from = `4477009${String(n % 100000).padStart(5, '0')}`;
      // Decided by the id, so a duplicate delivery repeats the same kind of message.
      const isMedia = Number(id.slice(id.lastIndexOf('-') + 1)) % 100 < mediaRate * 100;
      const message = isMedia
        ? {
            from,
            id,
            timestamp: '1763700000',
            type: 'image',
            image: {
              id: `9${n}`,
              mime_type: 'image/jpeg',
              sha256: 'LCa0a2j/xo/5m0U8HTBBNBNCLXBkg7+g+YpeiGJm564=',
              caption: `Benchmark photo ${n}`,
            },
          }
        : { from, id, timestamp: '1763700000', type: 'text', text: { body: `Benchmark message ${n}` } };
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
                  ...(firmNumbers.length ? { metadata: { display_phone_number: firmNumbers[n % firmNumbers.length] } } : {}),
                  contacts: [{ profile: { name: 'Bench' }, wa_id: from }],
                  messages: [message],
                },
              },
            ],
          },
        ],
      });
      return { id, body, signature: `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` };
    },
  };
}

/** Share of new inbound messages that are photos in the ingest and load benchmarks. */
export const MEDIA_RATE = Number(process.env.BENCH_MEDIA_RATE ?? 0.2);

/** The one message of a delivery from createDeliveryFactory, as far as a minimal INSERT reads it. */
export type TBenchMessage = { from: string; id: string; text?: { body: string }; image?: { caption?: string } };

/** A delivery's body from createDeliveryFactory: one entry, one change, one message. */
export type TBenchDelivery = { entry: [{ changes: [{ value: { messages: [TBenchMessage] } }] }] };

/** The text a minimal INSERT keeps of a delivery's message: its text, or a photo's caption. */
export function bodyOf(message: TBenchMessage): string {
  return message.text?.body ?? message.image?.caption ?? '';
}

export type TLoadResult = {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
  acked: number;
  ackedIds: string[];
  sent: number;
};

/** autocannon against a webhook URL with signed deliveries; records which ids were answered 2xx. */
export async function loadWebhook(
  url: string,
  options: {
    connections: number;
    seconds: number;
    duplicateRate: number;
    receipts?: (count: number) => { body: string; signature: string } | null;
    /** The firm's numbers the deliveries name, in turn (createDeliveryFactory). */
    firmNumbers?: string[];
  },
): Promise<TLoadResult> {
  const factory = createDeliveryFactory(options.duplicateRate, MEDIA_RATE, options.firmNumbers);
  let receiptsSent = 0;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (req, ctx: object) => {
          const context = ctx as { id?: string };
          const receipt = options.receipts?.(receiptsSent);
          if (receipt) {
            receiptsSent++;
            context.id = undefined;
            return {
              ...req,
              body: receipt.body,
              headers: { 'content-type': 'application/json', 'x-service-signature': receipt.signature },
            };
          }
          const delivery = factory.next();
          context.id = delivery.id;
          return {
            ...req,
            body: delivery.body,
            headers: { 'content-type': 'application/json', 'x-service-signature': delivery.signature },
          };
        },
        onResponse: (status, _body, ctx: object) => {
          const context = ctx as { id?: string };
          if (status >= 200 && status < 300 && typeof context.id === 'string') factory.acked.add(context.id);
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
    acked: factory.acked.size,
    ackedIds: [...factory.acked],
    sent: factory.sentIds.length,
  };
}

/** How big a run is: `--quick`, or the full run (BENCH_SECONDS sets the ingest's seconds). */
export type TBenchScale = {
  seconds: number;
  connections: number;
  receipts: number;
  clients: number;
  communications: number;
  calls: number;
};

/** `full`; `quick` (scaled down, figures indicative); `smoke` (CI: the code paths at their smallest). */
export type TBenchSize = 'full' | 'quick' | 'smoke';

/** A part's own figure for the run's size. */
export const bySize = <T>(size: TBenchSize, sizes: Record<TBenchSize, T>): T => sizes[size];

/** What run-bench.ts hands each part: the run's size, and where its figures go. */
export type TBenchTools = {
  /** `quick` or `smoke`. */
  quick: boolean;
  size: TBenchSize;
  scale: TBenchScale;
  report: (figure: TFigure) => void;
};
