import { performance } from 'node:perf_hooks';
import { QueryTypes } from 'sequelize';
import type { TProviderFor } from '../numbers';
import type { TLogger } from '../core/logger';
import type { ProviderClient } from '../provider';
import { db } from '../core/db/db';
import { warnUnlessStopping } from '../core/stopping';
import { DownloadFailure, downloadFailureOf, SUPERSEDED } from './download-failure';
import { HandOff, tryDownload, type TDownloadJob, type TTryLimits } from './download-try';
import type { TMediaStore } from './media-store';

export { NO_DOWNLOADS_IN_DEMO } from './download-failure';

// The queue is the attachments table itself (a `pending` row due at `next_attempt_at`), claimed
// with FOR UPDATE SKIP LOCKED and a lease (`locked_until`) rather than a queue library: the job and
// its outcome are one row, set in the same transaction as the bytes, so a file is stored exactly
// when its job is done, and no second schema (pg-boss, graphile-worker) is needed for one kind of
// job. A job cut off by a crash keeps its lease until it runs out, then any instance takes it up;
// the final UPDATE is fenced by the try number, so a job whose lease was taken over stores nothing.
//
// Two kinds of lane (server/media/README.md "Files", decision 0021), so a small file never waits behind slow
// ones: the ordinary lanes take due files oldest first, whatever their size; the express lanes take
// only a file's first try, newest first, and keep it only while it is small (1 MB at most) and,
// once a file is waiting for the lane, quick (done within 2 s) — otherwise they hand it to the
// ordinary lanes, untried. A trickling download can hold an ordinary lane (down to the floor
// rate), never an express one for longer than its budget while another file waits.

export const MAX_DOWNLOAD_TRIES = 5;
/** The largest file the express lanes download. */
export const EXPRESS_MAX_BYTES = 1024 * 1024;

export type TMediaQueueOptions = {
  /** Waits before the 2nd, 3rd… try. The provider blocks media GETs after 20 errors an hour: back off. */
  backoffMs?: number[];
  /** How long a claimed job is someone's; renewed while the download moves. */
  leaseMs?: number;
  /** How often a queue with a free lane looks for due jobs (the webhook also wakes it). */
  pollMs?: number;
  /** Downloads at once per instance in the ordinary lanes; 0 turns this instance's queue off (express lanes too). */
  concurrency?: number;
  /** Downloads at once per instance in the express lanes (a file's first try, while small and quick). */
  expressConcurrency?: number;
  /** How long an express try may take (from its claim) before it gives way to a file waiting for the lane. */
  expressBudgetMs?: number;
  /**
   * The most one download may take: this much, plus a second per `minBytesPerSecond` of the file's
   * announced size.
   */
  deadlineBaseMs?: number;
  /** The floor rate: a try bringing fewer bytes a second over `floorWindowMs` (after `floorGraceMs`) is cut and retried later. */
  minBytesPerSecond?: number;
  floorWindowMs?: number;
  floorGraceMs?: number;
};

const DEFAULTS = {
  backoffMs: [30_000, 120_000, 600_000, 1_800_000],
  leaseMs: 120_000,
  pollMs: 5_000,
  concurrency: 2,
  expressConcurrency: 2,
  expressBudgetMs: 2_000,
  deadlineBaseMs: 60_000,
  minBytesPerSecond: 64 * 1024,
  floorWindowMs: 20_000,
  floorGraceMs: 10_000,
};

/** Where a download is spooled before it is stored (swept at start-up by this prefix). */
export const DOWNLOAD_SPOOL_PREFIX = 'firm-chat-download-';

type TLane = 'ordinary' | 'express';

// Which due rows a lane takes, in which order. An express lane takes a row nobody has claimed yet
// (no try counted, no lease ever set: handing a file on leaves its lease set, run out, as the mark
// that it had its express turn), newest first: the file that just arrived goes before a backlog.
const LANE_PICK: Record<TLane, string> = {
  ordinary: `state = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
             ORDER BY next_attempt_at, id`,
  express: `state = 'pending' AND next_attempt_at <= now() AND locked_until IS NULL AND attempts = 0
            ORDER BY next_attempt_at DESC, id DESC`,
};

/** Downloads inbound files in the background, never inside a webhook request. */
export class MediaDownloadQueue {
  private readonly options: typeof DEFAULTS;
  private timer: NodeJS.Timeout | undefined;
  private readonly running: Record<TLane, number> = { ordinary: 0, express: 0 };
  private stopped = true;
  private readonly active = new Set<Promise<void>>();
  /** Express tries under way: when each was claimed, and how to cut it for a file that waits. */
  private readonly expressTries = new Map<number, { since: number; cut: AbortController }>();
  private giving: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      provider: ProviderClient | null;
      /** Each firm number's client (its own key); absent: `provider` for every file. */
      providerFor?: TProviderFor;
      store: TMediaStore;
      logger: TLogger;
      /** Live views learn that a record's file arrived or failed. */
      announce: (communicationIds: number[]) => void;
    },
    options: TMediaQueueOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /**
   * Stops claiming and gives downloads under way a moment to finish; one still running then is cut
   * off with the database (its transaction keeps nothing) and taken up again when its lease runs out.
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.active]), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  /** Looks for due jobs now, in every lane with room (files were just recorded, or handed on). */
  wake(): void {
    if (this.stopped || this.options.concurrency === 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const size: Record<TLane, number> = { ordinary: this.options.concurrency, express: this.options.expressConcurrency };
    // A file just recorded finds the express lanes full: one long at its file gives way to it.
    if (this.running.express >= size.express) void this.giveWay();
    for (const lane of ['express', 'ordinary'] as const) {
      while (this.running[lane] < size[lane]) {
        this.running[lane]++;
        const work = this.drain(lane).finally(() => {
          this.running[lane]--;
          this.active.delete(work);
          this.schedule();
        });
        this.active.add(work);
      }
    }
  }

  /** A lane found nothing to do: look again in a while (one timer for the queue). */
  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => this.wake(), this.options.pollMs);
    this.timer.unref();
  }

  private async drain(lane: TLane): Promise<void> {
    while (!this.stopped) {
      let job: TDownloadJob | null;
      try {
        job = await this.claim(lane);
      } catch (error) {
        warnUnlessStopping(this.deps.logger, { error: (error as Error).name }, 'media queue could not claim a job');
        return;
      }
      if (!job) return;
      await this.process(job, lane);
    }
  }

  /** Takes the next due file for `lane` (skipping ones another instance holds) and counts the try. */
  async claim(lane: TLane = 'ordinary'): Promise<TDownloadJob | null> {
    const rows = await db().query<TDownloadJob>(
      `UPDATE attachments SET attempts = attempts + 1, locked_until = now() + $1 * interval '1 millisecond', updated_at = now()
       WHERE id = (SELECT id FROM attachments WHERE ${LANE_PICK[lane]} LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, communication_id AS "communicationId", provider_media_id AS "providerMediaId", mime_type AS "mimeType",
                 (SELECT c.firm_number_id FROM communications c WHERE c.id = communication_id) AS "firmNumberId",
                 expected_sha256 AS "expectedSha256", attempts`,
      { bind: [this.options.leaseMs], type: QueryTypes.SELECT },
    );
    return rows[0] ?? null;
  }

  /** One try: download, check, store; or record why not and when to try again; or hand it on. */
  async process(job: TDownloadJob, lane: TLane = 'ordinary'): Promise<void> {
    // A job whose earlier tries were all cut off (crashes) has had its tries: give up, as for failures.
    if (job.attempts > MAX_DOWNLOAD_TRIES) {
      await this.finishFailed(job, new DownloadFailure(`The download was interrupted ${MAX_DOWNLOAD_TRIES} times.`, true));
      return;
    }
    const renew = setInterval(
      () => {
        db()
          .query(
            `UPDATE attachments SET locked_until = now() + $2 * interval '1 millisecond' WHERE id = $1 AND attempts = $3 AND state = 'pending'`,
            {
              bind: [job.id, this.options.leaseMs, job.attempts],
            },
          )
          .catch(() => undefined);
      },
      Math.max(1_000, this.options.leaseMs / 3),
    );
    const cut = lane === 'express' ? this.watchExpress(job) : null;
    try {
      await tryDownload(job, this.deps, this.limits(cut));
      this.deps.logger.info({ attachmentId: job.id, attempt: job.attempts, lane }, 'media stored');
    } catch (error) {
      if (error instanceof HandOff) return await this.handOff(job, error.message);
      const failure = downloadFailureOf(error);
      this.deps.logger.warn({ attachmentId: job.id, attempt: job.attempts, lane, error: failure.message }, 'media download failed');
      await this.finishFailed(job, failure).catch((e: unknown) =>
        this.deps.logger.warn({ error: (e as Error).name }, 'media failure not recorded'),
      );
    } finally {
      clearInterval(renew);
      cut?.stop();
    }
    this.deps.announce([job.communicationId]);
  }

  /**
   * Registers an express try; past its budget it is looked at (then every second): a file waiting
   * for the express lanes cuts it. Nothing waiting, it goes on: its bytes are not thrown away for nothing.
   */
  private watchExpress(job: TDownloadJob): { signal: AbortSignal; stop: () => void } {
    const cut = new AbortController();
    this.expressTries.set(job.id, { since: performance.now(), cut });
    let watch: NodeJS.Timeout | undefined;
    const start = setTimeout(() => {
      void this.giveWay();
      watch = setInterval(() => void this.giveWay(), Math.min(1_000, this.options.pollMs)).unref();
    }, this.options.expressBudgetMs).unref();
    return {
      signal: cut.signal,
      stop: () => {
        clearTimeout(start);
        clearInterval(watch);
        this.expressTries.delete(job.id);
      },
    };
  }

  /** Cuts the express tries past their budget, oldest first, one for each file waiting for an express lane. */
  private giveWay(): Promise<void> {
    this.giving ??= (async () => {
      const now = performance.now();
      const late = [...this.expressTries.values()]
        .filter((t) => !t.cut.signal.aborted && now - t.since >= this.options.expressBudgetMs)
        .sort((a, b) => a.since - b.since);
      if (!late.length) return;
      const [row] = await db().query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM (SELECT 1 FROM attachments WHERE ${LANE_PICK.express} LIMIT $1) w`,
        { bind: [late.length], type: QueryTypes.SELECT },
      );
      for (const t of late.slice(0, row?.waiting ?? 0)) t.cut.abort();
    })()
      .catch((e: unknown) =>
        warnUnlessStopping(this.deps.logger, { error: (e as Error).name }, 'media queue could not look for waiting files'),
      )
      .finally(() => (this.giving = undefined));
    return this.giving;
  }

  private limits(cut: { signal: AbortSignal } | null): TTryLimits {
    const { options } = this;
    return {
      deadlineBaseMs: options.deadlineBaseMs,
      floor: { bytesPerSecond: options.minBytesPerSecond, windowMs: options.floorWindowMs, graceMs: options.floorGraceMs },
      express: cut ? { maxBytes: EXPRESS_MAX_BYTES, cut: cut.signal } : null,
    };
  }

  /**
   * The express lane gives the file back untried (its try uncounted, its place in the queue kept)
   * with its lease run out, so only the ordinary lanes take it; they are woken for it now.
   */
  private async handOff(job: TDownloadJob, why: string): Promise<void> {
    this.deps.logger.info({ attachmentId: job.id, why }, 'media handed to the ordinary lanes');
    await db()
      .query(
        `UPDATE attachments SET attempts = attempts - 1, locked_until = now(), updated_at = now()
         WHERE id = $1 AND attempts = $2 AND state = 'pending'`,
        { bind: [job.id, job.attempts] },
      )
      .catch((e: unknown) => this.deps.logger.warn({ error: (e as Error).name }, 'media hand-off not recorded'));
    this.wake();
  }

  private async finishFailed(job: TDownloadJob, failure: DownloadFailure): Promise<void> {
    if (failure.message === SUPERSEDED) return;
    const giveUp = failure.final || job.attempts >= MAX_DOWNLOAD_TRIES;
    const base = this.options.backoffMs[Math.min(job.attempts - 1, this.options.backoffMs.length - 1)] ?? 60_000;
    const wait = Math.round(base * (0.8 + Math.random() * 0.4));
    const error = giveUp && !failure.final ? `${failure.message} Gave up after ${job.attempts} tries.` : failure.message;
    await db().query(
      `UPDATE attachments
       SET state = CASE WHEN $3 THEN 'failed' ELSE 'pending' END, error = $4, locked_until = NULL,
           next_attempt_at = CASE WHEN $3 THEN NULL ELSE now() + $5 * interval '1 millisecond' END, updated_at = now()
       WHERE id = $1 AND attempts = $2 AND state = 'pending'`,
      { bind: [job.id, job.attempts, giveUp, error, wait] },
    );
  }
}
