import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { QueryTypes } from 'sequelize';
import { MAX_MEDIA_BYTES } from '../../shared/media-limits';
import type { TLogger } from '../core/logger';
import { ProviderError } from '../provider';
import type { ProviderClient } from '../provider';
import { makeTempDir } from '../core/temp-files';
import { sha256Hex } from '../core/sha256-hex';
import { db } from '../core/db/db';
import { cleanMimeType } from '../core/clean-file-metadata';
import { FileTooLargeError, type TMediaStore } from './media-store';

/** Said of an inbound file while no provider key is set: kept as the file's error. */
export const NO_DOWNLOADS_IN_DEMO = 'Files cannot be downloaded in demo mode (MESSAGING_API_KEY is not set).';

// The queue is the attachments table itself (a `pending` row due at `next_attempt_at`), claimed
// with FOR UPDATE SKIP LOCKED and a lease (`locked_until`) rather than a queue library: the job and
// its outcome are one row, set in the same transaction as the bytes, so a file is stored exactly
// when its job is done, and no second schema (pg-boss, graphile-worker) is needed for one kind of
// job. A job cut off by a crash keeps its lease until it runs out, then any instance takes it up;
// the final UPDATE is fenced by the try number, so a job whose lease was taken over stores nothing.

export const MAX_DOWNLOAD_TRIES = 5;

export type TMediaQueueOptions = {
  /** Waits before the 2nd, 3rd… try. The provider blocks media GETs after 20 errors an hour: back off. */
  backoffMs?: number[];
  /** How long a claimed job is someone's; renewed while the download moves. */
  leaseMs?: number;
  /** How often an idle queue looks for due jobs (the webhook also wakes it). */
  pollMs?: number;
  /** Downloads at once per instance. */
  concurrency?: number;
  /**
   * The most one download may take: this much, plus a second per `minBytesPerSecond` of the file's
   * announced size. A provider trickling bytes cannot hold a worker for longer.
   */
  deadlineBaseMs?: number;
  minBytesPerSecond?: number;
};

const DEFAULTS = {
  backoffMs: [30_000, 120_000, 600_000, 1_800_000],
  leaseMs: 120_000,
  pollMs: 5_000,
  concurrency: 2,
  deadlineBaseMs: 60_000,
  minBytesPerSecond: 64 * 1024,
};

/** Where a download is spooled before it is stored (swept at start-up by this prefix). */
export const DOWNLOAD_SPOOL_PREFIX = 'firm-chat-download-';

type TJob = {
  id: number;
  communicationId: number;
  providerMediaId: string | null;
  mimeType: string;
  expectedSha256: string | null;
  attempts: number;
};

/** Why a try failed, in words for the thread; `final` failures are not tried again. */
class DownloadFailure extends Error {
  override name = 'DownloadFailure';
  constructor(
    message: string,
    readonly final: boolean,
  ) {
    super(message);
  }
}

function failureOf(error: unknown): DownloadFailure {
  if (error instanceof DownloadFailure) return error;
  if (error instanceof FileTooLargeError) return new DownloadFailure('The file is larger than 100 MB; it was not downloaded.', true);
  if (error instanceof ProviderError) {
    if (error.kind === 'not_found' || error.kind === 'bad_request') {
      return new DownloadFailure(`The provider no longer has this file (HTTP ${error.status}); ask the client to send it again.`, true);
    }
    if (error.kind === 'not_configured') return new DownloadFailure(NO_DOWNLOADS_IN_DEMO, true);
    if (error.kind === 'unauthorized') return new DownloadFailure('The provider refused the download (check MESSAGING_API_KEY).', false);
    if (error.kind === 'timeout') return new DownloadFailure('The provider stopped sending the file (timed out).', false);
    if (error.kind === 'network') return new DownloadFailure('The provider could not be reached.', false);
    return new DownloadFailure(`The provider could not send the file (HTTP ${error.status ?? '?'}).`, false);
  }
  return new DownloadFailure('The download failed.', false);
}

/** Writes a download to `file`, hashing and counting as it goes; past `maxBytes` it stops. */
async function spoolDownload(body: AsyncIterable<Uint8Array>, file: string, maxBytes: number): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(
    body,
    async function* (source: AsyncIterable<Uint8Array>) {
      for await (const piece of source) {
        size += piece.byteLength;
        if (size > maxBytes) throw new FileTooLargeError(maxBytes);
        hash.update(piece);
        yield piece;
      }
    },
    createWriteStream(file),
  );
  return { size, sha256: hash.digest('hex') };
}

/** Downloads inbound files in the background, never inside a webhook request. */
export class MediaDownloadQueue {
  private readonly options: typeof DEFAULTS;
  private timer: NodeJS.Timeout | undefined;
  private running = 0;
  private stopped = true;
  private readonly active = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      provider: ProviderClient | null;
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

  /** Looks for due jobs now (files were just recorded). */
  wake(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    while (this.running < this.options.concurrency) {
      this.running++;
      const work = this.drain().finally(() => {
        this.running--;
        this.active.delete(work);
        if (this.running === 0) this.schedule();
      });
      this.active.add(work);
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), this.options.pollMs);
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      let job: TJob | null;
      try {
        job = await this.claim();
      } catch (error) {
        this.deps.logger.warn({ error: (error as Error).name }, 'media queue could not claim a job');
        return;
      }
      if (!job) return;
      await this.process(job);
    }
  }

  /** Takes the next due file (skipping ones another instance holds) and counts the try. */
  async claim(): Promise<TJob | null> {
    const rows = await db().query<TJob>(
      `UPDATE attachments SET attempts = attempts + 1, locked_until = now() + $1 * interval '1 millisecond', updated_at = now()
       WHERE id = (
         SELECT id FROM attachments
         WHERE state = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at, id
         LIMIT 1 FOR UPDATE SKIP LOCKED
       )
       RETURNING id, communication_id AS "communicationId", provider_media_id AS "providerMediaId", mime_type AS "mimeType",
                 expected_sha256 AS "expectedSha256", attempts`,
      { bind: [this.options.leaseMs], type: QueryTypes.SELECT },
    );
    return rows[0] ?? null;
  }

  /** One try: download, check, store; or record why not and when to try again. */
  async process(job: TJob): Promise<void> {
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
    try {
      await this.download(job);
      this.deps.logger.info({ attachmentId: job.id, attempt: job.attempts }, 'media stored');
    } catch (error) {
      const failure = failureOf(error);
      this.deps.logger.warn({ attachmentId: job.id, attempt: job.attempts, error: failure.message }, 'media download failed');
      await this.finishFailed(job, failure).catch((e: unknown) =>
        this.deps.logger.warn({ error: (e as Error).name }, 'media failure not recorded'),
      );
    } finally {
      clearInterval(renew);
    }
    this.deps.announce([job.communicationId]);
  }

  private async download(job: TJob): Promise<void> {
    const provider = this.deps.provider;
    if (!provider) throw new DownloadFailure(NO_DOWNLOADS_IN_DEMO, true);
    if (!job.providerMediaId)
      throw new DownloadFailure('The provider gave no usable id for this file; ask the client to send it again.', true);
    const info = await provider.getMediaInfo(job.providerMediaId);
    if (info.fileSize !== null && info.fileSize > MAX_MEDIA_BYTES) throw new FileTooLargeError(MAX_MEDIA_BYTES);
    const expected = sha256Hex(info.sha256) ?? sha256Hex(job.expectedSha256);
    const limit = Math.min(MAX_MEDIA_BYTES, info.fileSize ?? MAX_MEDIA_BYTES);
    // The bytes go to a spool file first, with no database connection held: a slow provider
    // must not keep a transaction open (and a pool connection busy) for as long as it trickles.
    const deadlineMs = this.options.deadlineBaseMs + Math.ceil(((info.fileSize ?? limit) / this.options.minBytesPerSecond) * 1000);
    const deadline = AbortSignal.timeout(deadlineMs);
    const spool = await makeTempDir('download');
    try {
      const file = await provider.downloadMedia(info.url, { deadline });
      const spooled = await spoolDownload(file.body, path.join(spool, 'file'), limit).catch((error: unknown) => {
        if (deadline.aborted)
          throw new DownloadFailure(
            `The provider sent the file too slowly: not finished within ${Math.round(deadlineMs / 1000)} s.`,
            false,
          );
        throw error;
      });
      if (expected && spooled.sha256 !== expected) throw new DownloadFailure("The file did not match the provider's checksum.", false);
      if (info.fileSize !== null && spooled.size !== info.fileSize) throw new DownloadFailure('The file arrived incomplete.', false);
      await this.storeSpooled(job, path.join(spool, 'file'), spooled.size, info.mimeType);
    } finally {
      await rm(spool, { recursive: true, force: true });
    }
  }

  /** Moves a checked spool file into the store and marks the job done, in one short transaction. */
  private async storeSpooled(job: TJob, file: string, size: number, mimeType: string | null): Promise<void> {
    const { store } = this.deps;
    await db().transaction(async (transaction) => {
      const { sha256 } = await store.write(job.id, createReadStream(file), { maxBytes: size, transaction });
      const updated = await db().query<{ id: number }>(
        `UPDATE attachments
         SET state = 'stored', size = $3, sha256 = $4, error = NULL, locked_until = NULL, next_attempt_at = NULL,
             mime_type = CASE WHEN mime_type = 'application/octet-stream' AND $5::text IS NOT NULL THEN $5 ELSE mime_type END,
             updated_at = now()
         WHERE id = $1 AND attempts = $2 AND state = 'pending'
         RETURNING id`,
        {
          bind: [job.id, job.attempts, size, sha256, mimeType ? cleanMimeType(mimeType) : null],
          transaction,
          type: QueryTypes.SELECT,
        },
      );
      // Someone else's try now (our lease ran out): theirs decides, ours keeps nothing.
      if (updated.length === 0) throw new DownloadFailure('superseded', false);
    });
  }

  private async finishFailed(job: TJob, failure: DownloadFailure): Promise<void> {
    if (failure.message === 'superseded') return;
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
