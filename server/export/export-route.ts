import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create as contentDisposition } from 'content-disposition';
import type { RequestHandler } from 'express';
import { recordAuditEvent } from '../audit';
import { readerOf, sessionUserOf } from '../auth';
import { seesSubject } from '../access';
import { cleanFileName } from '../core/clean-file-metadata';
import { makeTempDir } from '../core/temp-files';
import type { TLogger } from '../core/logger';
import { sendHttpError } from '../http/http-errors';
import { readExport, type TExportHeader, type TExportMessage, type TExportScope } from './read-export';
import { writeJsonExport } from './write-json-export';
import { writePdfExport } from './write-pdf-export';

/** Exports prepared at once by one server; more wait for a moment (each holds a connection and a file). */
export const MAX_EXPORTS_AT_ONCE = 2;

const FORMATS = {
  pdf: { contentType: 'application/pdf', write: writePdfExport },
  json: { contentType: 'application/json; charset=utf-8', write: writeJsonExport },
} satisfies Record<
  string,
  { contentType: string; write: (header: TExportHeader, pages: AsyncIterable<TExportMessage[]>, out: Writable) => Promise<void> }
>;
type TFormat = keyof typeof FORMATS;

/** `client/12.pdf` → what to export; null for anything else. */
export function parseExportPath(scope: string, file: string): { scope: TExportScope; format: TFormat } | null {
  const match = /^([1-9]\d{0,9})\.(pdf|json)$/.exec(file);
  if ((scope !== 'client' && scope !== 'case') || !match) return null;
  const id = Number(match[1]);
  return id <= 2_147_483_647 ? { scope: { type: scope, id }, format: match[2] as TFormat } : null;
}

/** "Chat record - Amelia Hart - 2026-11-23.pdf": no controls or direction overrides, cut between characters. */
export function exportFileName(header: TExportHeader, format: TFormat): string {
  const subject = header.subject.type === 'client' ? header.subject.name : `${header.subject.reference} ${header.subject.name}`;
  const clean = (cleanFileName(subject) ?? '')
    .replace(/[:*?"<>|_]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return `Chat record - ${[...clean].slice(0, 100).join('').trim() || 'unnamed'} - ${header.exportedAt.slice(0, 10)}.${format}`;
}

/** A reader that stops reading for this long loses the connection (and the file it was sent). */
export const EXPORT_SEND_IDLE_MS = 60_000;

/**
 * `GET /api/export/:scope/:file` — `client/12.pdf`, `case/3.json` (README "Evidence exports").
 * Any signed-in member of staff (requireSession, where the app mounts it). The export is written to a temporary file while its
 * SHA-256 is computed (it must head the response, before the body), recorded in the audit trail
 * with the hash, then streamed and deleted: never in memory whole, whatever its length.
 */
export function serveExport(deps: { firmName: string; logger: TLogger; now: () => Date }): RequestHandler {
  let preparing = 0;
  return async (req, res) => {
    const gone = new AbortController(); // from the start: a reader gone before the export exists stops it too
    res.on('close', () => gone.abort());
    // HEAD would prepare, hash and record an export nobody receives.
    if (req.method !== 'GET') {
      res.set('Allow', 'GET');
      return sendHttpError(res, 405, 'Exports are downloaded with GET.');
    }
    const user = sessionUserOf(res);
    // A link on another site must not make a signed-in browser create exports (and audit events).
    if (req.headers['sec-fetch-site'] === 'cross-site') return sendHttpError(res, 403, 'Exports are started from Firm Chat itself.');
    const request = parseExportPath(String(req.params.scope), String(req.params.file));
    if (!request) return sendHttpError(res, 404, 'There is no such export: ask for client/<id>.pdf|json or case/<id>.pdf|json.');
    // Walled (README "Ethical walls"): answered as for a subject that does not exist, and audited.
    const subject = request.scope.type === 'client' ? { clientId: request.scope.id } : { caseId: request.scope.id };
    if (!(await seesSubject(readerOf(req, res), subject))) return sendHttpError(res, 404, `That ${request.scope.type} does not exist.`);
    if (preparing >= MAX_EXPORTS_AT_ONCE) {
      res.set('Retry-After', '5');
      return sendHttpError(res, 429, 'Other exports are being prepared. Try again in a few seconds.');
    }
    // A slot is held while the export is prepared, not while a slow reader downloads it.
    preparing += 1;
    let holding = true;
    const release = () => {
      if (holding) preparing -= 1;
      holding = false;
    };
    let dir: string | null = null;
    try {
      // Tagged with this process, so a sweep after a crash knows it is nobody's any more.
      dir = await makeTempDir('export');
      const path = join(dir, `export.${request.format}`);
      const hash = createHash('sha256');
      let size = 0;
      const hasher = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      });
      const spooled = pipeline(hasher, createWriteStream(path));
      let header: TExportHeader | null;
      try {
        header = await readExport(
          {
            scope: request.scope,
            firm: deps.firmName,
            user: { id: user.id, name: user.name, email: user.email },
            now: deps.now(),
            signal: gone.signal,
          },
          (head, pages) => FORMATS[request.format].write(head, pages, hasher),
        );
        hasher.end();
        await spooled;
      } catch (error) {
        hasher.destroy();
        await spooled.catch(() => undefined);
        throw error;
      }
      if (!header) return sendHttpError(res, 404, `That ${request.scope.type} does not exist.`);
      if (gone.signal.aborted) return; // nobody is waiting for it: not sent, so not recorded
      const sha256 = hash.digest('hex');
      const fileName = exportFileName(header, request.format);
      await recordAuditEvent({
        actor: { userId: user.id, ip: req.ip ?? null },
        action: 'export.create',
        subject: `${request.scope.type}:${request.scope.id}`,
        detail: { format: request.format, sha256, bytes: size, messages: header.count, fileName },
      });
      res.status(200).set({
        'Content-Type': FORMATS[request.format].contentType,
        'Content-Length': String(size),
        'Content-Disposition': contentDisposition(fileName),
        'X-Content-SHA256': sha256,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      });
      release();
      res.setTimeout(EXPORT_SEND_IDLE_MS, () => res.destroy());
      await pipeline(createReadStream(path), res);
    } catch (error) {
      if (gone.signal.aborted) return; // the person went away: nothing to answer
      deps.logger.error(
        { error: (error as Error).name, code: (error as NodeJS.ErrnoException).code, scope: request.scope.type },
        'export failed',
      );
      if (!res.headersSent) sendHttpError(res, 500, 'The export could not be prepared. Nothing was recorded; try again.');
      else res.destroy();
    } finally {
      release();
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  };
}
