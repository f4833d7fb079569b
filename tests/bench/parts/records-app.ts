import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startBenchServer, TSX } from '../app-under-test';
import { ROOT, type TBenchTools } from '../bench-support';
import { rssMb } from '../process-memory';

// What the records part runs beside its database: the real server (its own retention worker
// erases the batches), a health check asked every 50 ms for how long the server keeps a request
// waiting, and the maintenance scripts as an operator runs them, their memory sampled meanwhile.

export type TRecordsApp = { appUrl: string; serverPid: number; cookie: string; stop: () => Promise<void> };

/** The server on `url`, with the director (seeded by records.ts) signed in. */
export async function startRecordsApp(url: string, email: string, password: string): Promise<TRecordsApp> {
  const { app, appUrl, serverPid } = await startBenchServer(url, { MESSAGING_API_KEY: '' });
  try {
    const signIn = await fetch(`${appUrl}/trpc/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: { email, password } }),
    });
    if (signIn.status !== 200)
      throw new Error(`the director's sign-in answered ${signIn.status}: ${await signIn.text()}\nthe server's log:\n${app.output()}`);
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    return { appUrl, serverPid, cookie, stop: app.stop };
  } catch (error) {
    await app.stop();
    throw error;
  }
}

const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** `/api/health` asked every `everyMs` until the returned stop: each answer's wait, sorted, and how many failed. */
export function sampleHealth(appUrl: string, everyMs = 50): () => Promise<{ waits: number[]; failed: number }> {
  let running = true;
  let failed = 0;
  const waits: number[] = [];
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      const ok = await fetch(`${appUrl}/api/health`).then(
        async (res) => (await res.arrayBuffer(), res.status === 200),
        () => false,
      );
      waits.push(performance.now() - t);
      if (!ok) failed++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { waits: waits.sort((a, b) => a - b), failed };
  };
}

/**
 * Runs a script (`tsx <script> <args>`) as an operator would, with `env`, sampling every 50 ms the
 * resident memory of each process under it; the peak is the largest one's (the script's own node
 * process: tsx runs it as a child of its own).
 */
export async function runScriptMeasured(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ seconds: number; peakMb: number; output: string }> {
  const t0 = performance.now();
  const child = spawn(TSX, [script, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const peaks = new Map<number, number>();
  const sample = () => {
    const tree = [child.pid!];
    for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]!));
    for (const pid of tree) {
      try {
        const mb = rssMb(pid);
        if (Number.isFinite(mb)) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, mb));
      } catch {
        // it ended between listing and reading
      }
    }
  };
  const timer = setInterval(sample, 50);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(timer);
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`${script} ${args.join(' ')} exited with ${code}:\n${output}`);
  return { seconds, peakMb: Math.max(0, ...peaks.values()), output };
}

/** A request must not wait longer than this at p99 while the records' long work runs beside it. */
export const HEALTH_P99_MS = 250;

/** Reports how long `/api/health` kept its askers waiting during `during` (p99 of the sampled waits). */
export function reportHealthWaits(tools: TBenchTools, during: string, waits: number[], failed: number, part = 'records'): void {
  const p99 = waits[Math.min(waits.length - 1, Math.floor(0.99 * waits.length))] ?? NaN;
  tools.report({
    part,
    name: `${during} (${waits.length} asked, ${failed} failed; slowest ${Math.max(...waits).toFixed(0)} ms)`,
    value: p99,
    unit: 'ms',
    ceiling: HEALTH_P99_MS,
    ceilingName: 'target',
    ratio: p99 / HEALTH_P99_MS,
    target: `≤ ${HEALTH_P99_MS} ms, none failed`,
    pass: p99 <= HEALTH_P99_MS && failed === 0,
  });
}
