import { Server as TusServer } from '@tus/server';
import { ERRORS } from '@tus/utils';
import express, { type Request, type Router } from 'express';
import { QueryTypes } from 'sequelize';
import { MAX_MEDIA_BYTES, tooLargeMessage } from '../../../shared/media-limits';
import { sessionUserOf } from '../../auth';
import { drainBeforeClosing } from '../../http/drain-unread-body';
import { sendHttpError } from '../../http/http-errors';
import type { TUploadRouteDeps } from '../upload-types';
import { db } from '../../core/db/db';
import { UploadRefusal } from '../upload-refusal';
import { finishResumableUpload } from './finish-upload';
import { describeUpload, PostgresUploadStore, uploaderContext, uploadNotFound } from './resumable-store';
import { BUSY_MESSAGE, uploadSlots } from './upload-slots';
import { watchIdleUpload } from './watch-idle-upload';

export const RESUMABLE_UPLOADS_PATH = '/api/uploads';
/** On the answer that completes an upload: the attachment to send (`chat.send({attachmentId})`). */
export const ATTACHMENT_ID_HEADER = 'Upload-Attachment-Id';

const UPLOAD_ID = /^[0-9a-f]{32}$/;

type TDeps = TUploadRouteDeps;

/**
 * `/api/uploads`: resumable uploads, tus 1.0 (creation, creation-with-upload, termination,
 * expiration), for the same files as `POST /api/media` under the same rules: signed in, same site,
 * the same per-person and overall limits on uploads in progress, the same per-kind size limits
 * (from Upload-Length when it is created, and on the bytes), the same cleaning of name and type.
 * The offset and bytes live in PostgreSQL (resumable-store.ts). The answer that completes an upload
 * carries `Upload-Attachment-Id`; `GET /api/uploads/:id/attachment` gives the same attachment
 * (`{attachmentId, kind, mimeType, fileName, size}`) to a browser that missed that answer.
 *
 * A request that carries bytes holds an upload slot while it lasts and is ended when nothing has
 * arrived for `idleMs` (what arrived is kept, the browser resumes); there is no total time limit.
 */
export function receiveResumableUploads(deps: TDeps): Router {
  const site = new URL(deps.siteUrl).origin;
  const tus = new TusServer({
    path: RESUMABLE_UPLOADS_PATH,
    datastore: new PostgresUploadStore(),
    relativeLocation: true,
    maxSize: MAX_MEDIA_BYTES,
    // Same site only (checked before tus sees the request): no CORS answer for anyone else.
    allowedOrigins: (origin) => origin === site,
    exposedHeaders: [ATTACHMENT_ID_HEADER],
    // A finished upload is an attachment now; it goes with the attachment, not by DELETE.
    disableTerminationForFinishedUploads: true,
    onUploadCreate: (_req, upload) => {
      describeUpload(upload.metadata, upload.size); // refuses with 400/413 before anything is stored
      return Promise.resolve({});
    },
    onIncomingRequest: async (req, id) => {
      if (req.method === 'POST') return;
      // Someone else's upload does not exist, for this person.
      const [row] = await db().query<{ user_id: number; sent: boolean }>(
        `SELECT u.user_id, a.communication_id IS NOT NULL AS sent
         FROM resumable_uploads u LEFT JOIN attachments a ON a.id = u.attachment_id WHERE u.id = $1`,
        { bind: [id], type: QueryTypes.SELECT },
      );
      if (!row || row.user_id !== uploaderContext.getStore()?.userId) throw uploadNotFound();
      // Sent already: a browser resuming it must start a new upload, not send the same one twice.
      if (row.sent) throw new UploadRefusal(410, 'This upload has already been sent.');
    },
    onUploadFinish: async (_req, upload) => {
      const userId = uploaderContext.getStore()!.userId;
      const file = await finishResumableUpload(deps, upload.id, userId);
      return { headers: { [ATTACHMENT_ID_HEADER]: String(file.attachmentId) } };
    },
    onResponseError: (_req, error) => {
      if (error instanceof UploadRefusal) return error;
      if ('status_code' in error) {
        // tus's own refusal of an Upload-Length over maxSize is a plain object; its stream limiter
        // (a body longer than what is left of the upload) throws an Error with the same body.
        if (error.body === ERRORS.ERR_MAX_SIZE_EXCEEDED.body && !(error instanceof Error)) {
          return new UploadRefusal(413, tooLargeMessage('document', MAX_MEDIA_BYTES));
        }
        if (error.status_code === 413) {
          return new UploadRefusal(413, 'More bytes were sent than the upload said it would have (Upload-Length).');
        }
        return new UploadRefusal(error.status_code, error.body.trim());
      }
      deps.logger.error({ error: error.name }, 'resumable upload failed');
      return new UploadRefusal(500, 'The file could not be stored; try again.');
    },
  });

  const router = express.Router();
  router.use(async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Tus-Resumable', '1.0.0');
    const user = sessionUserOf(res);
    const id = /^\/([^/]+)/.exec(req.path)?.[1];
    if (id !== undefined && !UPLOAD_ID.test(id)) return sendHttpError(res, 404, 'No such upload.');

    if (req.method === 'GET') {
      if (!id || req.path !== `/${id}/attachment`) return sendHttpError(res, 404, 'No such upload.');
      try {
        res.json(await finishResumableUpload(deps, id, user.id));
      } catch (error) {
        if (error instanceof UploadRefusal) return sendHttpError(res, error.status_code, error.message);
        deps.logger.error({ error: (error as Error).name }, 'resumable upload not finished');
        sendHttpError(res, 500, 'The file could not be stored; try again.');
      }
      return;
    }

    if (carriesBytes(req)) {
      const slot = uploadSlots.take(user.id);
      if (!slot) return sendHttpError(res, 429, BUSY_MESSAGE);
      // A refusal before the last byte (over Upload-Length, over the kind's limit): tus answers and
      // would close the connection at once, resetting it under a browser still sending.
      drainBeforeClosing(req, res);
      res.once('close', slot.release);
      // tus listens for the body's 'error' to end its write cleanly; this one keeps an early one harmless.
      req.on('error', () => undefined);
      const stopWatching = watchIdleUpload(req, deps.idleMs, () => {
        // What arrived is stored as the write unwinds; the browser resumes from there.
        res.locals.cut = 'idle';
        res.locals.unanswered = true; // the connection goes with the request: tus's answer reaches no one
        req.destroy(new Error('upload idle'));
      });
      res.once('close', stopWatching);
    }
    try {
      await uploaderContext.run({ userId: user.id }, () => tus.handle(req, res));
    } catch (error) {
      deps.logger.error({ error: (error as Error).name }, 'resumable upload request failed');
      if (!res.headersSent) sendHttpError(res, 500, 'The file could not be stored; try again.');
    }
  });
  return router;
}

/** POST with creation-with-upload or PATCH: a body on its way. */
function carriesBytes(req: Request): boolean {
  if (req.method !== 'PATCH' && req.method !== 'POST') return false;
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}
