import sharp from 'sharp';
import type { TMediaStore } from '../media';
import { isHeld } from './exhibit-held';
import type { TPdfPart, TPdfPhoto } from './pdf-parts';
import type { TExportMessage } from './read-export';

// Photos in the PDF (server/export/README.md "Evidence exports"): each stored picture is drawn with its exhibit
// number, from a copy scaled down here, on the server's thread (sharp works on its own threads),
// while the worker draws the part before. The original bytes are untouched: they go into a court
// bundle as they are, and the PDF lists their SHA-256.

/** Pictures drawn; any other file is listed as an exhibit. */
const PHOTO_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);
/** Larger files are listed, not drawn: reading and decoding them would hold that much memory. */
export const PHOTO_MAX_BYTES = 25 * 1024 * 1024;
/** Nor pictures of more pixels than this (a decoded image is 3–4 bytes a pixel). */
const PHOTO_MAX_PIXELS = 120_000_000;
/** The long side of the copy drawn: sharp across an A4 page, yet small in the file. */
export const PHOTO_LONG_SIDE = 1_200;
/**
 * A part handed to the worker carries at most about this much scaled photo (at least one message):
 * the photos of a page of 500 messages would otherwise all be in memory at once.
 */
const PART_PHOTO_BYTES = 8 * 1024 * 1024;

type TFile = TExportMessage['attachments'][number];

/** Whether the file is a picture the firm holds, which the PDF draws. */
export function isPhoto(file: TFile): boolean {
  return isHeld(file) && PHOTO_TYPES.has(file.mimeType.split(';')[0]!.trim().toLowerCase());
}

/** The stored bytes, or null past `max` (read no further). */
async function readUpTo(store: TMediaStore, attachmentId: number, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  const stream = store.read(attachmentId);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) return null;
      chunks.push(chunk);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, size);
}

/** The picture as a JPEG at most PHOTO_LONG_SIDE pixels long, turned upright, transparency on white. */
export async function scalePhoto(store: TMediaStore, file: TFile): Promise<TPdfPhoto> {
  const attachmentId = file.id;
  if (file.size !== null && file.size > PHOTO_MAX_BYTES) return { attachmentId, notDrawn: 'larger than 25 MB' };
  let bytes: Buffer | null;
  try {
    bytes = await readUpTo(store, attachmentId, PHOTO_MAX_BYTES);
  } catch {
    return { attachmentId, notDrawn: 'its bytes could not be read' };
  }
  if (!bytes) return { attachmentId, notDrawn: 'larger than 25 MB' };
  if (bytes.length === 0) return { attachmentId, notDrawn: 'no bytes stored' };
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: PHOTO_MAX_PIXELS, sequentialRead: true })
      .rotate()
      .resize({ width: PHOTO_LONG_SIDE, height: PHOTO_LONG_SIDE, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 80 })
      .toBuffer({ resolveWithObject: true });
    // Its own memory, so it can be handed to the worker rather than copied.
    const jpeg = data.byteOffset === 0 && data.buffer.byteLength === data.length ? new Uint8Array(data.buffer) : new Uint8Array(data);
    return { attachmentId, jpeg, width: info.width, height: info.height };
  } catch {
    return { attachmentId, notDrawn: 'not a picture this system can read' };
  }
}

/**
 * The messages as parts for the worker, each with its photos scaled (`store` absent: none drawn).
 * A page is split where its photos pass PART_PHOTO_BYTES, so only about that much is in flight.
 */
export async function* withPhotos(pages: AsyncIterable<TExportMessage[]>, store: TMediaStore | undefined): AsyncIterable<TPdfPart> {
  for await (const page of pages) {
    let messages: TExportMessage[] = [];
    let photos: TPdfPhoto[] = [];
    let bytes = 0;
    for (const message of page) {
      messages.push(message);
      for (const file of message.attachments) {
        if (!store || !isPhoto(file)) continue;
        const photo = await scalePhoto(store, file);
        photos.push(photo);
        if ('jpeg' in photo) bytes += photo.jpeg.byteLength;
      }
      if (bytes >= PART_PHOTO_BYTES) {
        yield { type: 'messages', messages, photos };
        messages = [];
        photos = [];
        bytes = 0;
      }
    }
    if (messages.length) yield { type: 'messages', messages, photos };
  }
}
