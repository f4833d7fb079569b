import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { RequestHandler } from 'express';
import { MAX_MEDIA_BYTES, sendKindOf, tooLargeMessage, UPLOAD_LIMITS } from '../../shared/media-limits';
import { sessionUserOf } from '../auth';
import { Attachment } from '../core/db/models/index';
import { sendHttpError } from '../http/http-errors';
import { db } from '../core/db/db';
import { cleanFileName, cleanMimeType } from '../core/clean-file-metadata';
import type { TUploadedFile } from '../../shared/media-limits';
import { BUSY_MESSAGE, uploadSlots, type TUploadSlot } from './uploads/upload-slots';
import { idleMessage, watchIdleUpload } from './uploads/watch-idle-upload';
import { FileTooLargeError, type TMediaStore } from './media-store';
import { UploadRefusal } from './upload-refusal';
import type { TUploadRouteDeps } from './upload-types';

/** Room for the multipart framing around the file itself. */
const FRAMING_BYTES = 64 * 1024;

/**
 * `POST /api/media` (behind requireSameSite and requireSession): one file in multipart field `file`, spooled to a temporary file and then
 * stored in one transaction, so a refused or broken upload keeps nothing. Limits per kind (a photo
 * 5 MB, audio and video 16 MB, a document 100 MB) are enforced on the bytes as they arrive. A field
 * `as=document` sent before the file sends a photo, video or audio file as a document (its limit).
 *
 * There is no limit on the total time: an upload that keeps moving may take as long as the link
 * needs. One that sends nothing for `idleMs` is answered 408 and its slot is given back at once.
 */
export function receiveUpload(deps: TUploadRouteDeps): RequestHandler {
  return async (req, res) => {
    const user = sessionUserOf(res);
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data')) {
      return sendHttpError(res, 415, 'Send the file as multipart/form-data in the field "file".');
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_MEDIA_BYTES + FRAMING_BYTES) {
      return sendHttpError(res, 413, tooLargeMessage('document', MAX_MEDIA_BYTES));
    }
    let parser: busboy.Busboy;
    try {
      // defParamCharset: browsers send file names as UTF-8 (busboy's default reads them as latin1).
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { files: 1, fields: 10, fieldSize: 1024, parts: 12, fileSize: MAX_MEDIA_BYTES + 1 },
      });
    } catch {
      return sendHttpError(res, 400, 'The upload is not valid multipart/form-data.');
    }
    let fileStream: Readable | null = null;
    let asDocument = false;
    let stopWatching = () => {};
    const stored = new Promise<TUploadedFile>((resolve, reject) => {
      // A stalled browser: the spooling stops (its slot is given back as it unwinds) and it gets 408.
      stopWatching = watchIdleUpload(req, deps.idleMs, () => {
        res.locals.cut = 'idle';
        reject(new UploadRefusal(408, idleMessage(deps.idleMs)));
        fileStream?.destroy(new Error('upload idle'));
      });
      parser.on('field', (name, value) => {
        if (name === 'as' && value === 'document') asDocument = true;
      });
      parser.on('file', (field, stream, info) => {
        // Every file stream gets an error listener at once: a body that ends mid-file makes busboy
        // emit 'error' on it, and an unheard 'error' event would end the whole process.
        const refusal = { byUs: false };
        stream.on('error', () => {
          // Our own refusal (over the limit) comes back through the stream too: storeUpload reports that one.
          if (!refusal.byUs) reject(new UploadRefusal(400, 'The upload ended before the whole file arrived.'));
        });
        if (field !== 'file' || fileStream) return void stream.resume();
        fileStream = stream;
        const slot = uploadSlots.take(user.id);
        if (!slot) {
          stream.resume();
          return reject(new UploadRefusal(429, BUSY_MESSAGE));
        }
        const file = { mimeType: info.mimeType, fileName: info.filename, userId: user.id, asDocument };
        storeUpload(deps, stream, file, slot, refusal).then(resolve, (error: unknown) => {
          stream.resume(); // a refused file: the rest of it is read and dropped
          reject(error instanceof Error ? error : new Error('The upload could not be stored.', { cause: error }));
        });
      });
      parser.on('close', () => {
        if (!fileStream) reject(new UploadRefusal(400, 'Choose a file to upload (multipart field "file").'));
      });
      parser.on('error', () => reject(new UploadRefusal(400, 'The upload is not valid multipart/form-data.')));
      // A browser that gives up mid-file: the store's transaction is rolled back, nothing is kept.
      req.on('close', () => {
        if (req.complete) return;
        fileStream?.destroy?.(new Error('upload interrupted'));
        reject(new UploadRefusal(400, 'The upload was interrupted.'));
      });
    });
    req.pipe(parser);
    try {
      const result = await stored;
      res.status(200).json(result);
    } catch (error) {
      if (error instanceof UploadRefusal) return sendHttpError(res, error.status_code, error.message);
      deps.logger.error({ error: (error as Error).name }, 'upload not stored');
      sendHttpError(res, 500, 'The file could not be stored; try again.');
    } finally {
      stopWatching();
    }
  };
}

/**
 * The upload goes to a temporary file first (limit checked on the bytes as they arrive), then into
 * the store in one short transaction: a slow browser never holds a database connection, which the
 * webhook needs, for the minutes a large upload can take.
 */
async function storeUpload(
  deps: { store: TMediaStore },
  stream: Readable,
  file: { mimeType: string; fileName: string | undefined; userId: number; asDocument: boolean },
  slot: TUploadSlot,
  refusal: { byUs: boolean },
): Promise<TUploadedFile> {
  const mimeType = cleanMimeType(file.mimeType);
  const kind = sendKindOf(mimeType, { asDocument: file.asDocument });
  const limit = UPLOAD_LIMITS[kind];
  const fileName = cleanFileName(file.fileName) ?? 'file';
  const dir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-upload-'));
  const spool = path.join(dir, 'file');
  try {
    let size = 0;
    await pipeline(
      stream,
      async function* countUpToLimit(source: AsyncIterable<Buffer>) {
        for await (const piece of source) {
          size += piece.length;
          if (size > limit) {
            refusal.byUs = true;
            throw new FileTooLargeError(limit);
          }
          yield piece;
        }
      },
      createWriteStream(spool, { mode: 0o600 }),
    );
    if (size === 0) throw new UploadRefusal(400, 'The file is empty.');
    // A few copies into the database at a time: the pool is shared with the webhook.
    const done = await slot.databaseTurn();
    try {
      return await db().transaction(async (transaction) => {
        const row = await Attachment.create(
          { communicationId: null, kind, mimeType, fileName, state: 'pending', uploadedBy: file.userId },
          { transaction },
        );
        const stored = await deps.store.write(row.id, createReadStream(spool), { maxBytes: limit, transaction });
        await row.update({ size: stored.size, sha256: stored.sha256, state: 'stored' }, { transaction });
        return { attachmentId: row.id, kind, mimeType, fileName, size: stored.size };
      });
    } finally {
      done();
    }
  } catch (error) {
    if (error instanceof FileTooLargeError) throw new UploadRefusal(413, tooLargeMessage(kind, limit));
    throw error;
  } finally {
    slot.release();
    await rm(dir, { recursive: true, force: true });
  }
}
