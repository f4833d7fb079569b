import { pipeline } from 'node:stream/promises';
import { create as contentDisposition } from 'content-disposition';
import type { RequestHandler } from 'express';
import { findRequestUser } from '../auth/request-user';
import { Attachment } from '../db/models';
import type { TLogger } from '../logger';
import { fallbackFileName, isShownInline, servedContentType } from './file-metadata';
import type { TMediaStore } from './media-store';

/**
 * `GET /api/media/:attachmentId` (DESIGN "Media"): signed-in only, streamed from the store. A file
 * from outside is never rendered by the app's origin: a download unless it is a JPEG/PNG/WebP
 * photo, never sniffed, sandboxed, and served as octet-stream unless its type is harmless.
 */
export function serveMedia(deps: { store: TMediaStore; sessionSecret: string; logger: TLogger; now: () => Date }): RequestHandler {
  return async (req, res) => {
    const { user } = await findRequestUser(req, deps.sessionSecret, deps.now());
    if (!user) return void res.status(401).json({ ok: false, error: 'unauthorized' });
    const id = Number(req.params.attachmentId);
    const attachment = Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647 ? await Attachment.findByPk(id) : null;
    if (!attachment) return void res.status(404).json({ ok: false, error: 'not_found' });
    if (attachment.state !== 'stored') {
      return void res
        .status(409)
        .json({ ok: false, error: attachment.state === 'pending' ? 'not_downloaded_yet' : 'download_failed', message: attachment.error });
    }
    const name = attachment.fileName ?? fallbackFileName(attachment.kind, attachment.id, attachment.mimeType);
    res.status(200);
    res.set({
      'Content-Type': servedContentType(attachment.mimeType),
      'Content-Length': String(attachment.size ?? 0),
      'Content-Disposition': contentDisposition(name, {
        type: isShownInline(attachment.kind, attachment.mimeType) ? 'inline' : 'attachment',
      }),
      'X-Content-Type-Options': 'nosniff',
      // sandbox: no script, no origin; default-src 'none': nothing it names is fetched either.
      'Content-Security-Policy': "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'",
      'Cache-Control': 'private, max-age=3600',
      ...(attachment.sha256 ? { ETag: `"${attachment.sha256}"` } : {}),
    });
    try {
      await pipeline(deps.store.read(attachment.id), res);
    } catch (error) {
      // The reader went away (closed tab), or the database failed mid-file: the response is cut short.
      if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
        deps.logger.warn({ attachmentId: attachment.id, error: (error as Error).name }, 'media not served whole');
      res.destroy();
    }
  };
}
