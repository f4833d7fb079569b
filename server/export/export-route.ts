import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { create as contentDisposition } from 'content-disposition';
import type { RequestHandler } from 'express';
import { recordAuditEvent, type TAuditDetail } from '../audit';
import { readerOf, sessionUserOf } from '../auth';
import { seesSubject } from '../access';
import { cleanFileName } from '../core/clean-file-metadata';
import { makeTempDir } from '../core/temp-files';
import type { TLogger } from '../core/logger';
import { sendHttpError } from '../http/http-errors';
import type { TMediaStore } from '../media';
import type { TSigningKey } from '../signing';
import { signatureHeader, signDigest } from './export-signature';
import type { TWriteExport } from './export-writer';
import { spoolWhileHashing } from './hashing-spool';
import { readExport, type TExportHeader, type TExportScope } from './read-export';
import { refuseWithoutStepUp } from './restricted-export';
import { sendSpooledExport } from './send-spooled-export';
import { writeBundle } from './write-bundle';
import { writeJsonExport } from './write-json-export';
import { writePdfExport } from './write-pdf-export';

/** Exports prepared at once by one server; more wait for a moment (each holds a connection and a file). */
export const MAX_EXPORTS_AT_ONCE = 2;

const CONTENT_TYPES = { pdf: 'application/pdf', json: 'application/json; charset=utf-8', zip: 'application/zip' } as const;
type TFormat = keyof typeof CONTENT_TYPES;
/** The plain exports' writers; the court bundle is written by writeBundle, from the same snapshot. */
const WRITERS: Record<Exclude<TFormat, 'zip'>, TWriteExport> = { pdf: writePdfExport, json: writeJsonExport };

/** `client/12.pdf` → what to export; null for anything else. */
export function parseExportPath(scope: string, file: string): { scope: TExportScope; format: TFormat } | null {
  const match = /^([1-9]\d{0,9})\.(pdf|json|zip)$/.exec(file);
  if ((scope !== 'client' && scope !== 'case') || !match) return null;
  const id = Number(match[1]);
  return id <= 2_147_483_647 ? { scope: { type: scope, id }, format: match[2] as TFormat } : null;
}

/**
 * "Chat record - Amelia Hart - 2026-11-23.pdf", "Chat bundle - Amelia Hart - 2026-11-23.zip": no
 * controls or direction overrides, cut between characters.
 */
export function exportFileName(header: TExportHeader, format: TFormat): string {
  const subject = header.subject.type === 'client' ? header.subject.name : `${header.subject.reference} ${header.subject.name}`;
  const clean = (cleanFileName(subject) ?? '')
    .replace(/[:*?"<>|_]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return `Chat ${format === 'zip' ? 'bundle' : 'record'} - ${[...clean].slice(0, 100).join('').trim() || 'unnamed'} - ${header.exportedAt.slice(0, 10)}.${format}`;
}

/**
 * `?ticket=`: a page that saves an export through a hidden frame names the download, and learns the
 * hash and size of what it was given from a cookie of that name (server/export/README.md "Evidence exports").
 */
const TICKET = /^[A-Za-z0-9_-]{16,64}$/;
/** The ticket's cookie lives long enough for the page to read it once the download starts. */
const TICKET_COOKIE_SECONDS = 600;

/** The request's ticket: absent (null), or well formed; `false` when malformed or given twice. */
export function parseTicket(url: string): string | null | false {
  const tickets = new URL(url, 'http://localhost').searchParams.getAll('ticket');
  if (tickets.length === 0) return null;
  return tickets.length === 1 && TICKET.test(tickets[0]!) ? tickets[0]! : false;
}

/**
 * `firm_chat_export_<ticket>=<sha256>.<bytes>`: readable by the page (not HttpOnly: that is its
 * purpose), sent back to this site only, Secure on an https site. It names no subject, only the
 * fingerprint the page was about to be shown anyway.
 */
export function ticketCookie(ticket: string, file: { sha256: string; bytes: number }, secure: boolean): string {
  return `firm_chat_export_${ticket}=${file.sha256}.${file.bytes}; Path=/; Max-Age=${TICKET_COOKIE_SECONDS}; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** A reader that stops reading for this long loses the connection (and the file it was sent). */
export const EXPORT_SEND_IDLE_MS = 60_000;

/** What one export is once written: its temporary file, and what its audit event records. */
type TPrepared = { path: string; sha256: string; bytes: number; detail: Omit<TAuditDetail<'export.create'>, 'fileName'> };

/**
 * `GET /api/export/:scope/:file` — `client/12.pdf`, `case/3.json`, `client/12.zip` (the court bundle;
 * server/export/README.md "Evidence exports"). Any signed-in member of staff (requireSession, where the app mounts it).
 * The export is written to a temporary file while its SHA-256 is computed (it must head the
 * response, before the body), then streamed and deleted: never in memory whole, whatever its length.
 * It is recorded in the audit trail with the hash once the reader has all of it but the last byte
 * (sendSpooledExport): a reader gone before that leaves no record. With `?ticket=`, the answer
 * also sets the ticket's cookie (ticketCookie) with the hash and size.
 */
export function serveExport(deps: {
  firmName: string;
  /** The site's address: the ticket's cookie is Secure on https. */
  siteUrl: string;
  firmTimeZone: string;
  logger: TLogger;
  now: () => Date;
  store: TMediaStore;
  /** Signs every export (server/decisions/0023-signing-key.md). */
  signingKey: TSigningKey;
}): RequestHandler {
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
    if (!request) return sendHttpError(res, 404, 'There is no such export: ask for client/<id>.pdf|json|zip or case/<id>.pdf|json|zip.');
    const ticket = parseTicket(req.originalUrl);
    if (ticket === false)
      return sendHttpError(res, 400, 'The download ticket must be one value of 16 to 64 letters, digits, hyphens or underscores.');
    // Walled (server/access/README.md "Ethical walls"): answered as for a subject that does not exist, and audited.
    const subject = request.scope.type === 'client' ? { clientId: request.scope.id } : { caseId: request.scope.id };
    if (!(await seesSubject(readerOf(req, res), subject))) return sendHttpError(res, 404, `That ${request.scope.type} does not exist.`);
    if (await refuseWithoutStepUp(res, request.scope, deps.now())) return;
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
      const spoolDir = await makeTempDir('export');
      dir = spoolDir;
      const written: { export: TPrepared | null } = { export: null };
      const header = await readExport(
        {
          scope: request.scope,
          firm: deps.firmName,
          firmTimeZone: deps.firmTimeZone,
          user: { id: user.id, name: user.name, email: user.email },
          now: deps.now(),
          signal: gone.signal,
        },
        async (head, pages, snapshot) => {
          if (request.format === 'zip') {
            const bundle = await writeBundle(spoolDir, head, pages, snapshot, {
              store: deps.store,
              signal: gone.signal,
              signingKey: deps.signingKey,
            });
            const { path, sha256, bytes, ...parts } = bundle;
            written.export = { path, sha256, bytes, detail: { format: 'zip', sha256, bytes, messages: head.count, ...parts } };
            return;
          }
          const path = join(spoolDir, `export.${request.format}`);
          const spool = spoolWhileHashing(path);
          try {
            await WRITERS[request.format](head, pages, spool.input, { snapshot, store: deps.store });
            const { sha256, bytes } = await spool.finish();
            written.export = { path, sha256, bytes, detail: { format: request.format, sha256, bytes, messages: head.count } };
          } catch (error) {
            await spool.abandon();
            throw error;
          }
        },
      );
      if (!header) return sendHttpError(res, 404, `That ${request.scope.type} does not exist.`);
      if (gone.signal.aborted || !written.export) return; // nobody is waiting for it: not sent, so not recorded
      const { path, sha256, bytes, detail } = written.export;
      const fileName = exportFileName(header, request.format);
      // The whole file is spooled, so its digest (and signature) is known before the first byte is sent: no trailer needed.
      const signature = signDigest(deps.signingKey, sha256);
      res.status(200).set({
        'Content-Type': CONTENT_TYPES[request.format],
        'Content-Length': String(bytes),
        'Content-Disposition': contentDisposition(fileName),
        'X-Content-SHA256': sha256,
        'X-Signature': signatureHeader(signature, deps.signingKey.fingerprint),
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      });
      // Only with the export itself: a refusal above sets no cookie, and the page keeps waiting for its answer instead.
      if (ticket) res.append('Set-Cookie', ticketCookie(ticket, { sha256, bytes }, deps.siteUrl.startsWith('https://')));
      release();
      res.setTimeout(EXPORT_SEND_IDLE_MS, () => res.destroy());
      await sendSpooledExport(res, { path, bytes }, gone.signal, () =>
        recordAuditEvent({
          actor: { userId: user.id, ip: req.ip ?? null },
          action: 'export.create',
          subject: `${request.scope.type}:${request.scope.id}`,
          detail: { ...detail, fileName, signature, signingKey: deps.signingKey.fingerprint },
        }),
      );
    } catch (error) {
      if (gone.signal.aborted) return; // the person went away: nothing to answer
      deps.logger.error(
        { error: (error as Error).name, code: (error as NodeJS.ErrnoException).code, scope: request.scope.type, format: request.format },
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
