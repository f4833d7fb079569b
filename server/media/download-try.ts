import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { QueryTypes } from 'sequelize';
import { MAX_MEDIA_BYTES } from '../../shared/media-limits';
import { cleanMimeType } from '../core/clean-file-metadata';
import { db } from '../core/db/db';
import { sha256Hex } from '../core/sha256-hex';
import { makeTempDir } from '../core/temp-files';
import type { ProviderClient } from '../provider';
import type { TProviderFor } from '../numbers';
import { DownloadFailure, formatRate, NO_DOWNLOADS_IN_DEMO, refusedLinkReason, SUPERSEDED } from './download-failure';
import { DownloadFloor, type TFloorRate } from './download-floor';
import { FileTooLargeError, type TMediaStore } from './media-store';

// One try of one file: ask the provider where it is, download it to a spool file while hashing and
// timing it, check it, and store it with its job's end in one short transaction (decision 0005).

/** A claimed attachment row: the file to fetch and the try it is. */
export type TDownloadJob = {
  id: number;
  communicationId: number;
  providerMediaId: string | null;
  /** The firm's number the file came through: its key fetches it (server/numbers/README.md "Several numbers"). */
  firmNumberId?: number;
  mimeType: string;
  expectedSha256: string | null;
  attempts: number;
};

/** What one try may take: its deadline from the size, its floor rate, and the express lane's limits. */
export type TTryLimits = {
  deadlineBaseMs: number;
  floor: TFloorRate;
  /** Set on the express lane: a larger file, or a try `cut` to give way to a file waiting for the lane, is handed on (HandOff). */
  express: { maxBytes: number; cut: AbortSignal } | null;
};

/** The express lane hands the file to the ordinary lanes: larger than it takes, or slow while a file waits. */
export class HandOff extends Error {
  override name = 'HandOff';
}

/** Writes a download to `file`, hashing and counting as it goes (and telling `floor`); past `maxBytes` it stops. */
async function spoolDownload(
  body: AsyncIterable<Uint8Array>,
  file: string,
  maxBytes: number,
  floor: DownloadFloor,
): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(
    body,
    async function* (source: AsyncIterable<Uint8Array>) {
      for await (const piece of source) {
        size += piece.byteLength;
        if (size > maxBytes) throw new FileTooLargeError(maxBytes);
        floor.add(piece.byteLength);
        hash.update(piece);
        yield piece;
      }
    },
    createWriteStream(file),
  );
  return { size, sha256: hash.digest('hex') };
}

/** Downloads, checks and stores one file; throws DownloadFailure (or a provider error), or HandOff on the express lane. */
export async function tryDownload(
  job: TDownloadJob,
  deps: { provider: ProviderClient | null; providerFor?: TProviderFor; store: TMediaStore },
  limits: TTryLimits,
): Promise<void> {
  const provider = deps.providerFor ? await deps.providerFor(job.firmNumberId ?? 1, 'download') : deps.provider;
  if (!provider) throw new DownloadFailure(NO_DOWNLOADS_IN_DEMO, true);
  if (!job.providerMediaId)
    throw new DownloadFailure('The provider gave no usable id for this file; ask the client to send it again.', true);
  const info = await provider.getMediaInfo(job.providerMediaId);
  if (info.fileSize !== null && info.fileSize > MAX_MEDIA_BYTES) throw new FileTooLargeError(MAX_MEDIA_BYTES);
  const { express } = limits;
  if (express && info.fileSize !== null && info.fileSize > express.maxBytes) throw new HandOff('larger than the express lane takes');
  const refused = refusedLinkReason(info.url);
  if (refused) throw new DownloadFailure(refused, false);
  const expected = sha256Hex(info.sha256) ?? sha256Hex(job.expectedSha256);
  const limit = Math.min(MAX_MEDIA_BYTES, info.fileSize ?? MAX_MEDIA_BYTES);
  // A size not announced: the express lane takes the first megabyte, and hands on a larger file.
  const cap = express && info.fileSize === null ? Math.min(limit, express.maxBytes) : limit;
  const deadlineMs = limits.deadlineBaseMs + Math.ceil(((info.fileSize ?? limit) / limits.floor.bytesPerSecond) * 1000);
  const deadline = AbortSignal.timeout(deadlineMs);
  const floor = new DownloadFloor(limits.floor);
  const signal = AbortSignal.any([deadline, floor.signal, ...(express ? [express.cut] : [])]);
  // The bytes go to a spool file first, with no database connection held: a slow provider
  // must not keep a transaction open (and a pool connection busy) for as long as it trickles.
  const spool = await makeTempDir('download');
  try {
    if (express?.cut.aborted) throw new HandOff('another file waits for the express lane');
    floor.start();
    const spooled = await provider
      .downloadMedia(info.url, { deadline: signal })
      .then((file) => spoolDownload(file.body, path.join(spool, 'file'), cap, floor))
      .catch((error: unknown) => {
        // Cut to give way to a file waiting for the express lane: handed on, not failed; the ordinary lanes give it its time.
        if (express?.cut.aborted) throw new HandOff('gave way to a file waiting for the express lane');
        if (cap < limit && error instanceof FileTooLargeError) throw new HandOff('larger than the express lane takes');
        if (floor.signal.aborted)
          throw new DownloadFailure(
            `The provider sent the file too slowly: under ${formatRate(limits.floor.bytesPerSecond)} for ${Math.round(limits.floor.windowMs / 1000)} s.`,
            false,
          );
        if (deadline.aborted)
          throw new DownloadFailure(
            `The provider sent the file too slowly: not finished within ${Math.round(deadlineMs / 1000)} s.`,
            false,
          );
        throw error;
      });
    if (expected && spooled.sha256 !== expected) throw new DownloadFailure("The file did not match the provider's checksum.", false);
    if (info.fileSize !== null && spooled.size !== info.fileSize) throw new DownloadFailure('The file arrived incomplete.', false);
    await storeSpooled(job, deps.store, path.join(spool, 'file'), spooled.size, info.mimeType);
  } finally {
    floor.stop();
    await rm(spool, { recursive: true, force: true });
  }
}

/** Moves a checked spool file into the store and marks the job done, in one short transaction. */
async function storeSpooled(job: TDownloadJob, store: TMediaStore, file: string, size: number, mimeType: string | null): Promise<void> {
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
    if (updated.length === 0) throw new DownloadFailure(SUPERSEDED, false);
  });
}
