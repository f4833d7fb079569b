import { QueryTypes } from 'sequelize';
import type { TLogger } from '../core/logger';
import { db } from '../core/db/db';

/** What became of a POST to the webhook, as Settings tells a director. */
export const DELIVERY_OUTCOMES = ['accepted', 'unauthorized', 'rejected', 'failed'] as const;
export type TDeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** 2xx stored; 401 no valid secret or signature; other 4xx not a delivery we can read; 5xx not stored (the provider retries). */
export function outcomeOfStatus(status: number): TDeliveryOutcome {
  if (status >= 200 && status < 300) return 'accepted';
  if (status === 401) return 'unauthorized';
  if (status < 500) return 'rejected';
  return 'failed';
}

type TPending = { count: number; lastAt: Date; lastStatus: number };

// A write the database refused (a statement timeout behind a lock, a restart) is tried again after
// 1, 2, 4, 8 and 16 s; then this run stops and the next delivery starts another. Nothing is lost
// meanwhile, and nothing grows: pending is one entry per outcome whatever the number of deliveries.
const RETRY_FIRST_MS = 1_000;
const MAX_ATTEMPTS = 6;

/**
 * Notes each delivery's outcome in `webhook_deliveries` (one row per outcome, shared by every
 * instance) without holding up the answer to the provider: at most one write in flight per
 * instance, deliveries arriving meanwhile are folded into the next one. So a burst of deliveries —
 * or of forged POSTs — costs one small upsert at a time, not one per request. Times, statuses and
 * counts only: never a body, a header or a secret.
 */
export class DeliveryLog {
  private pending = new Map<TDeliveryOutcome, TPending>();
  private writing: Promise<void> | null = null;

  constructor(private readonly logger: TLogger) {}

  note(status: number, at = new Date()): void {
    this.fold(outcomeOfStatus(status), { count: 1, lastAt: at, lastStatus: status });
    this.writing ??= this.writeAll();
  }

  /** Resolves once everything noted so far is written (or, the database refusing, given up on for now). */
  async settle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Adds counts; the latest time keeps its status. */
  private fold(outcome: TDeliveryOutcome, noted: TPending): void {
    const seen = this.pending.get(outcome);
    if (!seen) this.pending.set(outcome, { ...noted });
    else {
      seen.count += noted.count;
      if (noted.lastAt >= seen.lastAt) Object.assign(seen, { lastAt: noted.lastAt, lastStatus: noted.lastStatus });
    }
  }

  private async writeAll(): Promise<void> {
    let failures = 0;
    try {
      while (this.pending.size) {
        // Rows in one order in every instance: concurrent upserts cannot deadlock.
        const batch = [...this.pending].sort(([a], [b]) => a.localeCompare(b));
        this.pending.clear();
        try {
          await db().query(
            `INSERT INTO webhook_deliveries AS d (outcome, last_at, last_status, count)
             SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::bigint[])
             ON CONFLICT (outcome) DO UPDATE SET
               count = d.count + EXCLUDED.count,
               last_status = CASE WHEN EXCLUDED.last_at >= d.last_at THEN EXCLUDED.last_status ELSE d.last_status END,
               last_at = GREATEST(d.last_at, EXCLUDED.last_at)`,
            {
              bind: [
                batch.map(([o]) => o),
                batch.map(([, p]) => p.lastAt),
                batch.map(([, p]) => p.lastStatus),
                batch.map(([, p]) => p.count),
              ],
              type: QueryTypes.INSERT,
            },
          );
          failures = 0;
        } catch (error) {
          // The delivery itself was answered already; its counts go back to wait for the next try.
          for (const [outcome, noted] of batch) this.fold(outcome, noted);
          failures += 1;
          const retryInMs = failures < MAX_ATTEMPTS ? RETRY_FIRST_MS * 2 ** (failures - 1) : null;
          // The error's name and SQLSTATE only: the statement's values are outcomes and counts, but nothing more is needed.
          this.logger.warn(
            { error: (error as Error).name, code: (error as { parent?: { code?: string } }).parent?.code, attempt: failures, retryInMs },
            retryInMs === null
              ? 'webhook delivery outcomes not recorded: kept until the next delivery'
              : 'webhook delivery outcomes not recorded yet: trying again',
          );
          if (retryInMs === null) return;
          // Unref'd: a retry waiting must not keep a stopping process alive.
          await new Promise((resolve) => setTimeout(resolve, retryInMs).unref());
        }
      }
    } finally {
      this.writing = null;
    }
  }
}

export type TDeliveryRow = { outcome: TDeliveryOutcome; lastAt: Date; lastStatus: number; count: number };

export async function listDeliveryOutcomes(): Promise<TDeliveryRow[]> {
  const rows = await db().query<{ outcome: TDeliveryOutcome; last_at: Date; last_status: number; count: string }>(
    'SELECT outcome, last_at, last_status, count FROM webhook_deliveries ORDER BY last_at DESC',
    { type: QueryTypes.SELECT },
  );
  return rows.map((row) => ({ outcome: row.outcome, lastAt: row.last_at, lastStatus: row.last_status, count: Number(row.count) }));
}
