import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type pg from 'pg';

// Where the scheduled sends' time goes: the CPU each app instance and the database's backends
// spend per send, read from /proc (Linux; the database on this machine). CPU time, unlike the wall
// clock, does not stretch when the shared machine is busy, so it tells a slow worker from a busy
// machine; the load average is printed beside it for the same reason.

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User and system CPU seconds a process has used, or NaN if it cannot be read (gone, or not on this machine). */
function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

export type TCpuUse = {
  instances: number[];
  database: number;
  seconds: number;
  load: number;
  /** The database's backends on average: running a statement; in a transaction, waiting for its client; connected. */
  backends: { active: number; inTransaction: number; connected: number };
};

/**
 * Samples, every 500 ms until the returned stop, the CPU of the app instances and of every backend
 * serving the current database (other than `db`'s own). A backend that started meanwhile counts
 * from zero; one that ended counts up to its last sample.
 */
export async function sampleCpu(db: pg.Client, instancePids: number[]): Promise<() => Promise<TCpuUse>> {
  const states = { active: 0, inTransaction: 0, connected: 0, samples: 0 };
  const readBackends = async () => {
    const { rows } = await db.query<{ pid: number; state: string | null }>(
      'SELECT pid, state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    states.samples++;
    states.connected += rows.length;
    states.active += rows.filter((r) => r.state === 'active').length;
    states.inTransaction += rows.filter((r) => r.state === 'idle in transaction').length;
    return rows.map((r) => r.pid);
  };
  const t0 = performance.now();
  const startInstances = instancePids.map(cpuSecondsOf);
  const startBackends = new Map<number, number>();
  for (const pid of await readBackends()) startBackends.set(pid, cpuSecondsOf(pid));
  const lastBackends = new Map(startBackends);
  const loads: number[] = [];
  const sample = async () => {
    for (const pid of await readBackends()) {
      const cpu = cpuSecondsOf(pid);
      if (Number.isFinite(cpu)) lastBackends.set(pid, cpu);
    }
    loads.push(os.loadavg()[0]!);
  };
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(sample).catch(() => undefined);
  }, 500);
  return async () => {
    clearInterval(timer);
    await sampling;
    await sample().catch(() => undefined);
    let database = 0;
    for (const [pid, cpu] of lastBackends) database += cpu - (startBackends.get(pid) ?? 0);
    return {
      instances: instancePids.map((pid, i) => cpuSecondsOf(pid) - startInstances[i]!),
      database,
      seconds: (performance.now() - t0) / 1000,
      load: loads.length ? loads.reduce((a, b) => a + b, 0) / loads.length : os.loadavg()[0]!,
      backends: {
        active: states.active / states.samples,
        inTransaction: states.inTransaction / states.samples,
        connected: states.connected / states.samples,
      },
    };
  };
}

/** "instances 4.1 + 3.9 ms, PostgreSQL 2.0 ms a send; 1.4 of 2 cores busy with them; load average 3.1; backends …". */
export function describeCpu(use: TCpuUse, sends: number): string {
  const perSend = (s: number) => `${((1000 * s) / Math.max(1, sends)).toFixed(1)}`;
  const busy = (use.instances.reduce((a, b) => a + b, 0) + use.database) / use.seconds;
  return (
    `CPU a send: instances ${use.instances.map(perSend).join(' + ')} ms, PostgreSQL ${perSend(use.database)} ms; ` +
    `${busy.toFixed(1)} of ${os.cpus().length} cores busy with them over ${use.seconds.toFixed(0)} s; machine load average ${use.load.toFixed(1)}; ` +
    `the database's backends on average: ${use.backends.active.toFixed(1)} running a statement, ${use.backends.inTransaction.toFixed(1)} in a transaction waiting for the app, ${use.backends.connected.toFixed(0)} connected`
  );
}

/** CPU milliseconds a send cost the instances and the database together. */
export const cpuMsPerSend = (use: TCpuUse, sends: number) =>
  (1000 * (use.instances.reduce((a, b) => a + b, 0) + use.database)) / Math.max(1, sends);
