import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { RequestHandler } from 'express';
import { QueryTypes, type Transaction } from 'sequelize';
import { sessionUserOf } from '../auth';
import { cleanFileName } from '../core/clean-file-metadata';
import { db } from '../core/db/db';
import { queryRows, sql } from '../core/sql';
import { visibleTo } from '../core/visibility';
import { Attachment } from '../core/db/models/index';
import type { TLogger } from '../core/logger';
import { makeTempDir } from '../core/temp-files';
import { sendHttpError } from '../http/http-errors';
import type { TMediaStore } from '../media';
import { openChatExport } from './chat-export-file';
import { ImportRefusal } from './import-refusal';
import { MAX_IMPORT_BYTES } from './import-limits';
import { summarizeExport } from './read-chat-messages';
import type { TImportPreview } from './import-schema';

/** Where an export is sent (server/imports/README.md "History from the phone"). */
export const IMPORT_UPLOAD_PATH = '/api/imports/whatsapp';

type TDeps = {
  store: TMediaStore;
  logger: TLogger;
  firmTimeZone: string;
  now: () => Date;
  idleMs: number;
  /** Calls `onIdle` once nothing has arrived for `idleMs` (the upload routes' rule); returns its stop. */
  watchIdle: (req: IncomingMessage, idleMs: number, onIdle: () => void) => () => void;
};

/**
 * `POST /api/imports/whatsapp`: a WhatsApp export (`.zip` or `.txt`) as multipart field `file`, as the
 * raw body with its name in `X-File-Name`, or as JSON `{attachmentId}` naming the person's own upload.
 * It is spooled to a temporary file, read (the preview), and only then kept — the export whole, as a
 * file hashed as the store writes it, beside the preview — in one transaction; anything refused keeps
 * nothing. Nothing becomes a record until `imports.commit`.
 */
export function receiveChatExport(deps: TDeps): RequestHandler {
  return async (req, res) => {
    const user = sessionUserOf(res);
    const dir = await makeTempDir('upload');
    const spool = path.join(dir, 'export');
    const stopWatching = deps.watchIdle(req, deps.idleMs, () => {
      res.locals.cut = 'idle';
      req.destroy(new Error('upload idle'));
    });
    try {
      // JSON names a file uploaded already, resumably (`/api/uploads`, as other uploads); else the bytes come now.
      const uploaded = isJson(req) ? await takeUploaded(req, deps.store, user.id, spool) : null;
      const received = uploaded ?? (await receiveFile(req, spool));
      if (received.size === 0) throw new ImportRefusal('The file is empty: choose the .zip or .txt that "Export chat" made.', 400);
      const chat = await openChatExport(spool);
      let summary;
      try {
        summary = await summarizeExport(chat, deps.firmTimeZone, deps.now());
      } finally {
        chat.close();
      }
      const zipped = chat.fileNames.size > 0 || /\.zip$/i.test(received.fileName);
      const preview = await db().transaction(async (transaction) => {
        // The export kept is a file of the import's own (an upload named by id is copied: it stays the person's to send or
        // leave). No one's upload: no one downloads it alone (GET /api/media), only within a bundle, behind the walls.
        const file = await Attachment.create(
          {
            communicationId: null,
            kind: 'document',
            mimeType: zipped ? 'application/zip' : 'text/plain; charset=utf-8',
            fileName: received.fileName,
            state: 'pending',
            uploadedBy: null,
          },
          { transaction },
        );
        const stored = await deps.store.write(file.id, createReadStream(spool), { maxBytes: MAX_IMPORT_BYTES, transaction });
        await file.update({ size: stored.size, sha256: stored.sha256, state: 'stored' }, { transaction });
        return keepPreview(user.id, file.id, { fileName: received.fileName, sha256: stored.sha256 }, summary, transaction);
      });
      res.status(200).json(preview);
    } catch (error) {
      if (error instanceof ImportRefusal) return sendHttpError(res, error.status, error.message);
      if (res.locals.cut === 'idle') return sendHttpError(res, 408, 'Nothing arrived for a while: the upload was stopped. Try again.');
      // The browser went away (a person pressed Cancel): nothing to answer, nothing wrong here.
      if (!req.complete) return sendHttpError(res, 400, 'The upload was interrupted.');
      deps.logger.error({ error: (error as Error).name }, 'chat export not read');
      sendHttpError(res, 500, 'The export could not be read; try again.');
    } finally {
      stopWatching();
      await rm(dir, { recursive: true, force: true });
    }
  };
}

async function keepPreview(
  userId: number,
  attachmentId: number,
  file: { fileName: string; sha256: string },
  summary: Omit<TImportPreview, 'importId' | 'fileName' | 'fileSha256'>,
  transaction: Transaction,
): Promise<TImportPreview> {
  const [row] = await db().query<{ id: string }>(
    `INSERT INTO phone_imports (created_by, attachment_id, file_name, file_sha256, summary)
     VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING id`,
    { bind: [userId, attachmentId, file.fileName, file.sha256, JSON.stringify(summary)], type: QueryTypes.SELECT, transaction },
  );
  // The same file imported before, where the person may see it (an import behind a wall is not theirs to know of).
  const [before] = await queryRows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM phone_imports i WHERE i.file_sha256 = ${file.sha256} AND i.state = 'committed'
        AND ${visibleTo({ id: userId }, sql`i.client_id`, sql`i.case_id`)}`,
    { transaction },
  );
  return { importId: row!.id, fileName: file.fileName, fileSha256: file.sha256, ...summary, alreadyImported: before!.n };
}

const isJson = (req: IncomingMessage) => (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');

/**
 * `{attachmentId}`: a file the person uploaded (`/api/uploads` or `POST /api/media`) and has not sent,
 * copied from the store to `spool`. Anyone else's, or none, is 404.
 */
async function takeUploaded(
  req: IncomingMessage,
  store: TMediaStore,
  userId: number,
  spool: string,
): Promise<{ size: number; fileName: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1024) throw new ImportRefusal('Send {"attachmentId": n} as JSON, or the export itself.', 400);
    chunks.push(chunk);
  }
  let attachmentId: unknown;
  try {
    attachmentId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { attachmentId?: unknown }).attachmentId;
  } catch {
    throw new ImportRefusal('Send {"attachmentId": n} as JSON, or the export itself.', 400);
  }
  if (!Number.isSafeInteger(attachmentId) || (attachmentId as number) < 1 || (attachmentId as number) > 2_147_483_647) {
    throw new ImportRefusal('Send {"attachmentId": n} as JSON, or the export itself.', 400);
  }
  const [row] = await db().query<{ file_name: string | null; size: number }>(
    `SELECT a.file_name, a.size FROM attachments a
     WHERE a.id = $1 AND a.uploaded_by = $2 AND a.communication_id IS NULL AND a.state = 'stored'`,
    { bind: [attachmentId, userId], type: QueryTypes.SELECT },
  );
  if (!row) throw new ImportRefusal('No such upload: upload the export again.', 404);
  await pipeline(store.read(attachmentId as number), createWriteStream(spool, { mode: 0o600 }));
  return { size: Number(row.size), fileName: row.file_name ?? 'WhatsApp chat export' };
}

/** The file, spooled to `spool` while counted; its name as the browser gave it, cleaned. */
async function receiveFile(req: IncomingMessage, spool: string): Promise<{ size: number; fileName: string }> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data')) {
    const named = typeof req.headers['x-file-name'] === 'string' ? safeDecode(req.headers['x-file-name']) : null;
    return { ...(await spoolCounted(req, spool)), fileName: cleanFileName(named) ?? 'WhatsApp chat export' };
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: { files: 1, fields: 5, parts: 6, fileSize: MAX_IMPORT_BYTES + 1 },
    });
  } catch {
    throw new ImportRefusal('The upload is not valid multipart/form-data.', 400);
  }
  return new Promise((resolve, reject) => {
    let taken = false;
    parser.on('file', (field, stream, info) => {
      stream.on('error', () => undefined); // reported by the spooling below
      if (field !== 'file' || taken) return void stream.resume();
      taken = true;
      spoolCounted(stream, spool).then((spooled) => {
        if ((stream as { truncated?: boolean }).truncated) reject(tooLarge());
        else resolve({ ...spooled, fileName: cleanFileName(info.filename) ?? 'WhatsApp chat export' });
      }, reject);
    });
    parser.on('close', () => {
      if (!taken) reject(new ImportRefusal('Choose the export to upload (multipart field "file").', 400));
    });
    parser.on('error', () => reject(new ImportRefusal('The upload is not valid multipart/form-data.', 400)));
    req.on('close', () => {
      if (!req.complete) reject(new ImportRefusal('The upload was interrupted.', 400));
    });
    req.pipe(parser);
  });
}

const tooLarge = () => new ImportRefusal('An export can be at most 2 GB. Nothing was kept.', 413);

async function spoolCounted(source: Readable, spool: string): Promise<{ size: number }> {
  let size = 0;
  await pipeline(
    source,
    async function* count(chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        size += chunk.length;
        if (size > MAX_IMPORT_BYTES) throw tooLarge();
        yield chunk;
      }
    },
    createWriteStream(spool, { mode: 0o600 }),
  );
  return { size };
}

function safeDecode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
