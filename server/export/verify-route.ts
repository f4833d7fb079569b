import type { IncomingMessage } from 'node:http';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { RequestHandler } from 'express';
import { describeCodePoint, showInvisibleCharacters } from '../../shared/visible-text';
import { recordAuditEvent } from '../audit';
import { readerOf, sessionUserOf } from '../auth';
import { seesSubject } from '../access';
import { db } from '../core/db/db';
import type { TLogger } from '../core/logger';
import { makeTempDir } from '../core/temp-files';
import { sendHttpError } from '../http/http-errors';
import { signatureOfCopy, type TPublicKey } from './export-signature';
import { findExportEvent, subjectOfExport, type TExportMatch } from './find-export-event';
import { findStoredFile, subjectOfStoredFile } from './find-stored-file';
import { spoolWhileHashing, type TSpooled } from './hashing-spool';
import { judgeCopy } from './judge-copy';
import { serializeVerifyResult } from './serialize-verify-result';
import { checkExportFile } from './verify-export';
import type { TVerifyResult } from './verify-result-types';

/** Where a copy is sent to be verified (server/export/README.md "Evidence exports"). */
export const EXPORT_VERIFY_PATH = '/api/export/verify';

/**
 * The audit subject of a check whose file is no export and no file the checker may see: it names
 * nothing (the Audit page shows "—"), and it is the subject such checks always had.
 */
export const EXPORT_UNKNOWN_SUBJECT = 'export';

/** The largest copy verified: a court bundle of 2 GB of files, with room to spare. */
export const MAX_VERIFY_BYTES = 5 * 1024 ** 3;
/** Copies checked at once by one server: each is a file being hashed through, perhaps gigabytes. */
export const MAX_VERIFICATIONS_AT_ONCE = 2;

/** Why a body was not received whole; answered with its status. */
class BodyRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Removes a check's temporary directory; false when it could not be (it is tried again). */
const removed = (dir: string) =>
  rm(dir, { recursive: true, force: true }).then(
    () => true,
    () => false,
  );

const tooLarge = () => new BodyRefusal(413, 'A copy to verify can be at most 5 GiB.');

/**
 * Writes the request's body to `out` as it arrives, waiting for `out` when it is behind. Refuses a
 * body past MAX_VERIFY_BYTES (413) or one that stops arriving for `idleMs` (408): the request is
 * left to sendHttpError, which reads and drops the rest and closes the connection after answering.
 */
function receiveBody(
  req: IncomingMessage,
  out: Writable,
  deps: { idleMs: number; watchIdle: (req: IncomingMessage, idleMs: number, onIdle: () => void) => () => void },
  onIdle: () => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let bytes = 0;
    const stop = (error?: Error) => {
      stopWatching();
      req.off('data', onData);
      out.off('drain', onDrain);
      if (error) reject(error);
      else resolve();
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_VERIFY_BYTES) return stop(tooLarge());
      if (!out.write(chunk)) req.pause();
    };
    const onDrain = () => req.resume();
    const stopWatching = deps.watchIdle(req, deps.idleMs, () => {
      onIdle();
      const seconds = Math.max(1, Math.round(deps.idleMs / 1000));
      stop(new BodyRefusal(408, `Nothing arrived for ${seconds} second${seconds === 1 ? '' : 's'}: the check was stopped. Try again.`));
    });
    req.on('data', onData);
    out.on('drain', onDrain);
    out.once('error', (error) => stop(error));
    req.once('end', () => stop());
    req.once('error', (error) => stop(error));
    req.once('close', () => {
      if (!req.complete) stop(new Error('the request was interrupted'));
    });
  });
}

/**
 * The `X-File-Name` header (URI-encoded), for display only: at most 255 characters, with every hidden,
 * direction-changing or control character shown as `[U+XXXX]` (never dropped, never acting); null
 * when absent, empty or not valid percent-encoding.
 */
function fileNameOf(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string' || !header) return null;
  try {
    const name = [...decodeURIComponent(header)].slice(0, 255).join('');
    return (
      showInvisibleCharacters(name)
        .replace(/[\t\n\r]/g, describeCodePoint)
        .trim() || null
    );
  } catch {
    return null;
  }
}

/**
 * `POST /api/export/verify` (server/export/README.md "Evidence exports"): a director sends a copy of an export (the
 * file's raw bytes) and learns which export it is, by whom and when, and for a court bundle whether
 * every file matches its manifest and what its messages.json recorded; a file that is no export may
 * be one the firm holds (an exhibit taken out of a bundle). The body is spooled to a temporary file
 * while hashed, never held in memory; like an upload it may take as long as it keeps moving
 * (`idleMs` without a byte ends it). An export or file of a client or case the director may not see
 * is answered as no export at all. The check is itself audited (`export.verify`).
 */
export function serveExportVerify(deps: {
  logger: TLogger;
  idleMs: number;
  /** Calls `onIdle` once no byte of the body has arrived for `idleMs` (the upload routes' rule); returns its stop. */
  watchIdle: (req: IncomingMessage, idleMs: number, onIdle: () => void) => () => void;
  /** The firm's key: a copy is genuine only when its signature verifies under it (server/decisions/0023-signing-key.md). */
  signingKey: TPublicKey;
}): RequestHandler {
  let verifying = 0;
  return async (req, res) => {
    const user = sessionUserOf(res);
    // Checked here as well as by Origin where the app mounts it: a page on another site must not spend a director's checks.
    if (req.headers['sec-fetch-site'] === 'cross-site') return sendHttpError(res, 403, 'Copies are verified from Firm Chat itself.');
    if (user.role !== 'director') return sendHttpError(res, 403, 'Only a director can verify a copy of an export.');
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/octet-stream')
      return sendHttpError(res, 415, 'Send the file itself as the request body, with Content-Type: application/octet-stream.');
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_VERIFY_BYTES) return sendHttpError(res, 413, tooLarge().message);
    if (verifying >= MAX_VERIFICATIONS_AT_ONCE) {
      res.set('Retry-After', '5');
      return sendHttpError(res, 429, 'Other copies are being verified. Try again in a few seconds.');
    }
    verifying += 1;
    let dir: string | null = null;
    try {
      dir = await makeTempDir('export');
      const path = join(dir, 'copy');
      const spool = spoolWhileHashing(path);
      let received: TSpooled;
      try {
        await receiveBody(req, spool.input, deps, () => {
          res.locals.cut = 'idle';
        });
        received = await spool.finish();
      } catch (error) {
        await spool.abandon();
        if (error instanceof BodyRefusal) return sendHttpError(res, error.status, error.message);
        if (res.destroyed || !req.complete) return; // the browser went away (cancelled): nothing to answer or record
        throw error;
      }
      if (received.bytes === 0) return sendHttpError(res, 400, 'The file is empty: choose the export to verify.');

      const check = await checkExportFile(path, received, deps.signingKey);
      const match: TExportMatch | null = await findExportEvent(db(), check);
      // Walls (server/access/README.md "Ethical walls"): an export of a matter the director may not see is no export to them.
      // A subject erased since has no wall left to keep.
      const visible = match && (!match.onFile || (await seesSubject(readerOf(req, res), subjectOfExport(match.found)))) ? match : null;
      const found = visible?.found ?? null;
      // Not an export: perhaps a file taken out of one, or any the firm holds; walled ones are not found (findStoredFile).
      const storedFile = found ? null : await findStoredFile(db(), check.sha256, user.id);
      const { verdict, summary } = judgeCopy(check, found, {
        lookedUp: true,
        byManifest: visible?.byManifest,
        byPart: visible?.byPart,
        storedFile,
        signature: signatureOfCopy(check, visible?.signed ?? null, deps.signingKey),
      });
      const result: TVerifyResult = {
        fileName: fileNameOf(req.headers['x-file-name']),
        kind: check.kind,
        sha256: check.sha256,
        bytes: check.bytes,
        export: found,
        manifest: check.manifest,
        storedFile,
        verdict,
        summary,
      };
      // The answer is written before the check is recorded: one that cannot be sent leaves no record.
      const body = await serializeVerifyResult(result);
      await recordAuditEvent({
        actor: { userId: user.id, ip: req.ip ?? null },
        action: 'export.verify',
        // What the copy is about, as export.create names it; EXPORT_UNKNOWN_SUBJECT when it is nothing the viewer may know.
        subject: found
          ? `${found.subject.type}:${found.subject.id}`
          : storedFile
            ? subjectOfStoredFile(storedFile)
            : EXPORT_UNKNOWN_SUBJECT,
        detail: {
          sha256: check.sha256,
          verdict,
          auditEventId: found?.auditEventId ?? null,
          attachmentId: storedFile?.attachmentId ?? null,
        },
      });
      // The copy is gone before the answer: once answered, nothing of it is left on disk (else `finally` tries again).
      if (await removed(dir)) dir = null;
      res.status(200).set('Cache-Control', 'no-store').type('application/json').send(body);
    } catch (error) {
      if (res.destroyed) return;
      deps.logger.error({ error: (error as Error).name, code: (error as NodeJS.ErrnoException).code }, 'export verification failed');
      sendHttpError(res, 500, 'The copy could not be checked. Nothing was recorded; try again.');
    } finally {
      verifying -= 1;
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  };
}
