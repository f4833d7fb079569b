import type pg from 'pg';
import type { ProviderSimulator } from '../../../server/dev/provider-sim/provider-simulator';
import type { TBatch } from './scheduled-seed';

// How the scheduled-sends part sees what the workers did: from the provider's side (each instance
// sends to a simulator of its own, and every send it accepts is stamped with the moment it arrived)
// and from the database's (the queue's states, the records a scheduled send made).

/** Every send each simulator accepted, by the number it went to: the moments (epoch ms) it arrived. */
export type TAcceptances = { bySim: Map<string, number[]>[] };

/**
 * Stamps each send the simulators accept with the moment it is accepted. The simulator keeps its
 * accepted sends in an array it pushes to at the moment of acceptance; this wraps that one
 * array's push (nothing else of the simulator changes), so the time is exact, not a poll's.
 */
export function stampAcceptances(sims: ProviderSimulator[]): TAcceptances {
  const bySim = sims.map((sim) => {
    const times = new Map<string, number[]>();
    const accepted = sim.accepted;
    const push = accepted.push.bind(accepted);
    accepted.push = (...items) => {
      const now = Date.now();
      for (const item of items) {
        const list = times.get(item.to);
        if (list) list.push(now);
        else times.set(item.to, [now]);
      }
      return push(...items);
    };
    return times;
  });
  return { bySim };
}

/** The queue's rows of a batch, by state, and its records still waiting for the provider's answer. */
export async function readBatchState(db: pg.Client, batch: TBatch) {
  const { rows } = await db.query<{ scheduled: string; sent: string; not_sent: string; other: string; pending: string }>(
    `SELECT count(*) FILTER (WHERE s.state = 'scheduled') AS scheduled,
            count(*) FILTER (WHERE s.state = 'sent') AS sent,
            count(*) FILTER (WHERE s.state = 'not_sent') AS not_sent,
            count(*) FILTER (WHERE s.state NOT IN ('scheduled', 'sent', 'not_sent')) AS other,
            count(*) FILTER (WHERE c.status = 'pending') AS pending
       FROM scheduled_sends s LEFT JOIN communications c ON c.id = s.communication_id
      WHERE s.id BETWEEN $1 AND $2`,
    [batch.firstId, batch.lastId],
  );
  const r = rows[0]!;
  return {
    scheduled: Number(r.scheduled),
    sent: Number(r.sent),
    notSent: Number(r.not_sent),
    other: Number(r.other),
    pending: Number(r.pending),
  };
}

/**
 * Waits until no row of the batch is still scheduled and no record it made waits for the provider,
 * polling every 200 ms; gives up at `deadlineMs` (epoch), or when nothing has moved for `stallMs`
 * once the batch is due (no worker, or a stuck one). Returns whether it finished.
 */
export async function waitForBatch(
  db: pg.Client,
  batch: TBatch,
  accepted: TAcceptances,
  limits: { deadlineMs: number; stallMs: number; dueMs: number },
): Promise<{ finished: boolean; reason: string }> {
  let last = '';
  let movedAt = Date.now();
  for (;;) {
    const state = await readBatchState(db, batch);
    if (state.scheduled === 0 && state.pending === 0) return { finished: true, reason: 'done' };
    const seen = `${JSON.stringify(state)} ${countAccepted(accepted)}`;
    if (seen !== last) {
      last = seen;
      movedAt = Date.now();
    }
    const now = Date.now();
    if (now > limits.deadlineMs) return { finished: false, reason: `deadline passed: ${JSON.stringify(state)}` };
    if (now > limits.dueMs && now - movedAt > limits.stallMs)
      return { finished: false, reason: `nothing moved for ${limits.stallMs / 1000} s: ${JSON.stringify(state)}` };
    await new Promise((r) => setTimeout(r, 200));
  }
}

const countAccepted = (accepted: TAcceptances) => accepted.bySim.reduce((n, times) => n + times.size, 0);

/**
 * Sends per scheduled row, from the provider's side: each row has a number of its own, so a number
 * accepted twice (by either simulator, or both) is a row sent twice. Also each simulator's share,
 * each row's first acceptance, and the latest acceptance of all.
 */
export function tallyAcceptances(batch: TBatch, accepted: TAcceptances) {
  let once = 0;
  let missing = 0;
  let twice = 0;
  let extraSends = 0;
  let lastMs = -Infinity;
  const share = accepted.bySim.map(() => 0);
  /** Each row's first acceptance (epoch ms) minus its due time, or null if it never went. */
  const lateness: (number | null)[] = [];
  for (const row of batch.rows) {
    const times = accepted.bySim.flatMap((bySim, i) => {
      const list = bySim.get(row.digits) ?? [];
      share[i]! += list.length;
      return list;
    });
    if (times.length === 0) missing++;
    else if (times.length === 1) once++;
    else {
      twice++;
      extraSends += times.length - 1;
    }
    if (times.length) {
      lastMs = Math.max(lastMs, ...times);
      lateness.push(Math.min(...times) - row.dueMs);
    } else lateness.push(null);
  }
  return { once, missing, twice, extraSends, lastMs, share, lateness };
}

/** Scheduled sends (of a batch, or all with no batch) with more than one record: the database's own count of sends twice. */
export async function countRecordsTwice(db: pg.Client, batch?: TBatch): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM (
       SELECT metadata->>'scheduled_send_id' FROM communications
        WHERE metadata ? 'scheduled_send_id'
          AND ($1::bigint IS NULL OR (metadata->>'scheduled_send_id')::bigint BETWEEN $1 AND $2)
        GROUP BY 1 HAVING count(*) > 1) twice`,
    [batch?.firstId ?? null, batch?.lastId ?? null],
  );
  return Number(rows[0]!.n);
}

/** Why the batch's rows were not sent, most common first. */
export async function listNotSentReasons(db: pg.Client, batch: TBatch): Promise<string> {
  const { rows } = await db.query<{ reason: string; n: string }>(
    `SELECT reason, count(*) AS n FROM scheduled_sends WHERE id BETWEEN $1 AND $2 AND state = 'not_sent'
      GROUP BY reason ORDER BY count(*) DESC LIMIT 3`,
    [batch.firstId, batch.lastId],
  );
  return rows.map((r) => `${r.n}× "${r.reason}"`).join('; ');
}

/** Each sent row's record creation minus its due time (ms), sorted: the database's view of lateness. */
export async function readRecordLateness(db: pg.Client, batch: TBatch): Promise<number[]> {
  const { rows } = await db.query<{ ms: string }>(
    `SELECT extract(epoch FROM c.created_at - s.send_at) * 1000 AS ms
       FROM scheduled_sends s JOIN communications c ON c.id = s.communication_id
      WHERE s.id BETWEEN $1 AND $2 ORDER BY 1`,
    [batch.firstId, batch.lastId],
  );
  return rows.map((r) => Number(r.ms));
}
