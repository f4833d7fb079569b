import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RequestHandler } from 'express';
import { actorOf, recordAuditEvent } from '../audit';
import { readerOf, sessionUserOf } from '../auth';
import type { TLogger } from '../core/logger';
import { readBusinessHours } from '../business-hours';
import { sendHttpError } from '../http/http-errors';
import {
  computeCertificateHash,
  hashCertificateItems,
  readAnchoredItemsHash,
  readCertificateBatch,
  writeCertificateJson,
  writeCertificatePdf,
} from './destruction-certificate';
import { countItemsHiddenFrom } from './retention-batches';

const NO_BATCH = 'There is no such batch.';

const UUID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(pdf|json)$/;

/**
 * `GET /api/retention/:batchId.pdf|.json` (server/records/README.md "Records"): a finished batch's destruction
 * certificate, for directors. It names no client: ids and hashes only, so it may be kept forever.
 */
export function serveCertificate(deps: { firmName: string; firmTimeZone?: string; logger: TLogger }): RequestHandler {
  return async (req, res) => {
    if (sessionUserOf(res).role !== 'director') return sendHttpError(res, 403, 'Only directors may read destruction certificates.');
    const match = UUID.exec(String(req.params.file));
    if (!match) return sendHttpError(res, 404, 'There is no such certificate: ask for <batch id>.pdf or <batch id>.json.');
    const [, batchId, format] = match as unknown as [string, string, 'pdf' | 'json'];
    const found = await readCertificateBatch(batchId);
    if (!found) return sendHttpError(res, 404, NO_BATCH);
    // Each item's hash could confirm a document of a matter the reader is walled from: such a
    // certificate is answered as one that does not exist (server/access/README.md "Ethical walls"), and the attempt audited.
    const reader = readerOf(req, res);
    if ((await countItemsHiddenFrom(reader, batchId)) > 0) {
      await recordAuditEvent({
        actor: actorOf(reader),
        action: 'access.denied',
        subject: `retention:${batchId}`,
        detail: { path: reader.path },
      });
      return sendHttpError(res, 404, NO_BATCH);
    }
    if (found.state !== 'done')
      return sendHttpError(res, 409, 'This batch has not been destroyed yet: its certificate follows when it has.');
    // The items must still be those the trail recorded when the batch finished: rows changed since
    // (by anyone with the database's rights) make a certificate that the trail contradicts.
    const [anchored, actual] = await Promise.all([readAnchoredItemsHash(batchId), hashCertificateItems(batchId)]);
    if (anchored === null || anchored !== actual) {
      deps.logger.error({ batchId }, 'a destruction certificate no longer matches its audit row');
      return sendHttpError(
        res,
        409,
        "This batch's records of what was destroyed were changed after it finished: they no longer match the audit trail. Restore them from a backup.",
      );
    }
    const sha256 = await computeCertificateHash(batchId);
    const batch = { ...found, itemsSha256: anchored, certificateSha256: sha256 };
    res.status(200).set({
      'Content-Type': format === 'pdf' ? 'application/pdf' : 'application/json; charset=utf-8',
      'Content-Disposition': `attachment; filename="destruction-certificate-${batchId}.${format}"`,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      ...(format === 'json' ? { 'X-Content-SHA256': sha256 ?? '' } : {}),
    });
    try {
      if (format === 'json') {
        // Checked as it goes: the bytes sent are the bytes whose hash the batch keeps.
        const hash = createHash('sha256');
        const hashing = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            hash.update(chunk);
            callback(null, chunk);
          },
        });
        const sent = pipeline(hashing, res);
        await writeCertificateJson(batch, hashing);
        hashing.end();
        await sent;
        if (hash.digest('hex') !== sha256) deps.logger.error({ batchId }, 'a destruction certificate did not match its stored hash');
      } else {
        // The firm's clock: the business hours' zone once set, the configured zone before.
        const { timeZone } = await readBusinessHours(undefined, deps.firmTimeZone);
        await writeCertificatePdf(batch, { name: deps.firmName, timeZone }, res);
      }
    } catch (error) {
      deps.logger.warn({ batchId, error: (error as Error).name }, 'destruction certificate not sent whole');
      res.destroy();
    }
  };
}
