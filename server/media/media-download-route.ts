import { pipeline } from 'node:stream/promises';
import { create as contentDisposition } from 'content-disposition';
import type { Request, RequestHandler } from 'express';
import { seesRecord } from '../access';
import { readerOf, sessionUserOf } from '../auth';
import { Attachment } from '../core/db/models/index';
import type { TLogger } from '../core/logger';
import { sendHttpError } from '../http/http-errors';
import { fallbackFileName, isShownInline, servedContentType } from './file-metadata';
import type { TByteRange, TMediaStore } from './media-store';
import { recordFileView } from './record-file-view';

/**
 * The one byte range a request asks for (a player seeking, a download resuming), `null` for the
 * whole file, or `unsatisfiable` when no byte it names is in the file. Parsed by Express's
 * `req.range` (the range-parser package): several ranges, once overlapping ones are merged, get the
 * whole file, as does a malformed header or another unit (a server may ignore Range), and so does an
 * `If-Range` naming another version than this one.
 */
function requestedRange(req: Request, size: number, etag: string | null): TByteRange | 'unsatisfiable' | null {
  const header = req.get('Range');
  if (!header) return null;
  const ifRange = req.get('If-Range');
  if (ifRange !== undefined && ifRange !== etag) return null;
  // A suffix longer than the file is the whole file (RFC 9110 14.1.2); range-parser calls it unsatisfiable.
  const suffix = /^bytes=\s*-\s*(\d+)\s*$/.exec(header);
  if (suffix && Number(suffix[1]) > size && size > 0) return { start: 0, end: size - 1 };
  const ranges = req.range(size, { combine: true });
  if (ranges === undefined || ranges === -2) return null;
  if (ranges === -1) return 'unsatisfiable';
  if (ranges.type !== 'bytes' || ranges.length !== 1) return null;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

/**
 * `GET /api/media/:attachmentId` (server/media/README.md "Files"): signed-in only (requireSession, where the app mounts it), streamed from the store. A file
 * from outside is never rendered by the app's origin: a download unless it is a JPEG/PNG/WebP
 * photo, never sniffed, sandboxed, and served as octet-stream unless its type is harmless. A single
 * byte range is answered 206 with only those bytes read from the store.
 */
const NO_SUCH_FILE = 'There is no such file.';

export function serveMedia(deps: { store: TMediaStore; logger: TLogger }): RequestHandler {
  return async (req, res) => {
    const id = Number(req.params.attachmentId);
    const attachment = Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647 ? await Attachment.findByPk(id) : null;
    if (!attachment) return sendHttpError(res, 404, NO_SUCH_FILE);
    // An upload not sent yet is its uploader's alone; a file on a record the reader is walled from
    // is answered as one that does not exist, and audited (server/access/README.md "Ethical walls").
    if (attachment.communicationId === null && attachment.uploadedBy !== sessionUserOf(res).id)
      return sendHttpError(res, 404, NO_SUCH_FILE);
    if (attachment.communicationId !== null && !(await seesRecord(readerOf(req, res), attachment.communicationId)))
      return sendHttpError(res, 404, NO_SUCH_FILE);
    if (attachment.erasedAt) return sendHttpError(res, 410, "This file was erased under the firm's retention policy; its SHA-256 is kept.");
    if (attachment.state !== 'stored') {
      const message = attachment.state === 'pending' ? 'This file has not been downloaded from the provider yet.' : attachment.error;
      return sendHttpError(res, 409, message ?? 'This file could not be downloaded from the provider.');
    }
    await recordFileView(readerOf(req, res), {
      id: attachment.id,
      communicationId: attachment.communicationId,
      size: Number(attachment.size ?? 0),
    });
    const name = attachment.fileName ?? fallbackFileName(attachment.kind, attachment.id, attachment.mimeType);
    const size = Number(attachment.size ?? 0);
    const etag = attachment.sha256 ? `"${attachment.sha256}"` : null;
    res.set({
      'Content-Type': servedContentType(attachment.mimeType),
      'Content-Disposition': contentDisposition(name, {
        type: isShownInline(attachment.kind, attachment.mimeType) ? 'inline' : 'attachment',
      }),
      'X-Content-Type-Options': 'nosniff',
      // sandbox: no script, no origin; default-src 'none': nothing it names is fetched either.
      'Content-Security-Policy': "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'",
      'Cache-Control': 'private, max-age=3600',
      'Accept-Ranges': 'bytes',
      ...(etag ? { ETag: etag } : {}),
    });
    const range = requestedRange(req, size, etag);
    if (range === 'unsatisfiable') {
      res.status(416).set({ 'Content-Range': `bytes */${size}`, 'Content-Length': '0' });
      return void res.end();
    }
    if (range) {
      res
        .status(206)
        .set({ 'Content-Range': `bytes ${range.start}-${range.end}/${size}`, 'Content-Length': String(range.end - range.start + 1) });
    } else {
      res.status(200).set('Content-Length', String(size));
    }
    try {
      await pipeline(deps.store.read(attachment.id, range ?? undefined), res);
    } catch (error) {
      // The reader went away (closed tab), or the database failed mid-file: the response is cut short.
      if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
        deps.logger.warn({ attachmentId: attachment.id, error: (error as Error).name }, 'media not served whole');
      res.destroy();
    }
  };
}
