import { readFileSync } from 'node:fs';

// The memory figures (files, exports, live updates): a process's resident memory, read from
// /proc (Linux), and its peak while some work runs.

/** Resident memory of a process, from /proc (Linux), in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** Peak RSS of `pid` while `work` runs, sampled every 50 ms. */
export async function peakRssDuring<T>(pid: number, work: () => Promise<T>): Promise<{ peak: number; result: T; seconds: number }> {
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
