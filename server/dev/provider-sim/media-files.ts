import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { sha256Hex as readSha256 } from '../../core/sha256-hex';
import { nextSequence, type TSimMedia, type TSimState } from './sim-state';

// The files the simulator holds: uploaded or given bytes, or generated ones of any size up to
// 200 MB that are made piece by piece on the fly, so a large file is never held whole.

export const MEDIA_PIECE = 64 * 1024;

/** A generated file's size (its bytes are made on the fly): up to 200 MB. */
export const ZSimMediaSize = z
  .number()
  .int()
  .min(0)
  .max(200 * 1024 * 1024)
  .optional();

export type TAddMediaInput = {
  bytes?: Buffer;
  size?: number;
  mimeType: string;
  fileName?: string;
  sha256?: string;
  /** Served at this many bytes a second, evenly (a trickling provider), instead of as fast as the app reads. */
  bytesPerSecond?: number;
  /** With `bytesPerSecond`: only the first this many downloads trickle; later ones come at full speed. */
  slowDownloads?: number;
  /** The link `GET /{media_id}` answers with instead of its own (a broken or hostile one). */
  link?: string;
  /** The download answers 302 to this location instead of sending the file. */
  redirectTo?: string;
};

/** How a file is served when a test asks for more than the plain bytes. */
type TServing = { bytesPerSecond: number; slowDownloads: number; link?: string; redirectTo?: string };
// Beside the file rather than in it (the simulator's state keeps the file's own shape).
const servings = new WeakMap<TSimMedia, TServing>();

/** How a file is served, if a test said (its link, a redirect). */
export function servingOf(media: TSimMedia): Readonly<TServing> | null {
  return servings.get(media) ?? null;
}

/** The rate (bytes a second) this download of a file is served at, or null for full speed; counts it as one download. */
export function takeDownloadPace(media: TSimMedia): number | null {
  const serving = servings.get(media);
  if (!serving || serving.bytesPerSecond <= 0 || serving.slowDownloads <= 0) return null;
  serving.slowDownloads -= 1;
  return serving.bytesPerSecond;
}

export type TAddedMedia = { id: string; sha256Hex: string; advertisedSha256Hex: string; sha256Base64: string; size: number };

/** Deterministic bytes for a generated file, piece by piece (the same every time for one id). */
export function* generatePieces(id: string, size: number): Generator<Buffer> {
  const pattern = Buffer.alloc(MEDIA_PIECE);
  for (let i = 0; i < MEDIA_PIECE; i++) pattern[i] = (i * 31 + id.charCodeAt(i % id.length)) & 0xff;
  for (let sent = 0; sent < size; sent += MEDIA_PIECE) yield pattern.subarray(0, Math.min(MEDIA_PIECE, size - sent));
}

/** Registers a file the provider holds (what a client sent, or a test's fixture). */
export async function addMedia(state: TSimState, input: TAddMediaInput): Promise<TAddedMedia> {
  const id = `7${Date.now().toString().slice(-9)}${String(nextSequence(state)).padStart(6, '0')}`;
  const bytes = input.bytes ?? null;
  const size = bytes ? bytes.length : Math.max(0, Math.floor(input.size ?? 0));
  const hash = createHash('sha256');
  if (bytes) hash.update(bytes);
  else {
    // A generated file may be gigabytes: hash it a megabyte at a time, so the simulator keeps
    // answering the app (downloads, sends) while a test registers it.
    let piecesSinceTurn = 0;
    for (const piece of generatePieces(id, size)) {
      hash.update(piece);
      if (++piecesSinceTurn === 16) {
        piecesSinceTurn = 0;
        await nextTurn();
      }
    }
  }
  const sha256Hex = hash.digest('hex');
  const advertisedSha256Hex = input.sha256 !== undefined ? (readSha256(input.sha256) ?? sha256Hex) : sha256Hex;
  const media: TSimMedia = { id, mimeType: input.mimeType, fileName: input.fileName ?? null, size, sha256Hex, advertisedSha256Hex, bytes };
  state.media.set(id, media);
  if (input.bytesPerSecond !== undefined || input.link !== undefined || input.redirectTo !== undefined) {
    servings.set(media, {
      bytesPerSecond: input.bytesPerSecond ?? 0,
      slowDownloads: input.slowDownloads ?? Infinity,
      link: input.link,
      redirectTo: input.redirectTo,
    });
  }
  // sha256Hex: the bytes' own hash; the advertised one (the webhook's base64, the media answer's hex) may differ on purpose.
  return { id, sha256Hex, advertisedSha256Hex, sha256Base64: Buffer.from(advertisedSha256Hex, 'hex').toString('base64'), size };
}

/** The bytes the simulator holds for a media id (uploads included), read whole: for tests of small files. */
export function readMediaBytes(state: TSimState, id: string): Buffer | null {
  const media = state.media.get(id);
  if (!media) return null;
  return media.bytes ?? Buffer.concat([...generatePieces(id, media.size)]);
}
