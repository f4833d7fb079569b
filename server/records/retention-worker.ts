import { QueryTypes } from 'sequelize';
import { readChainHead, recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import { announce, RESYNC_PAYLOAD } from '../events';
import type { TLogger } from '../core/logger';
import { warnUnlessStopping } from '../core/stopping';
import { computeCertificateHash, hashCertificateItems } from './destruction-certificate';
import { ERASE_ORDER, ERASED_TOTALS_SQL, eraseChunk, type TErasedTotals } from './retention-batches';

// The approved batch is its own job (as an attachment row is its download's: server/decisions/0005-media-download-queue-on-the-attachment-row.md):
// every instance polls for one; the one that leases it (SKIP LOCKED, a lease renewed after every
// chunk) erases it chunk by chunk. A crash leaves the lease to run out and another instance, or
// the next start, carries on where the items say it stopped: erased items are not taken again.

const POLL_MS = 1_000;
const LEASE = "interval '2 minutes'";
const RETRY_AFTER = "interval '10 seconds'";

type TLeasedBatch = { id: string; kind: 'retention' | 'erasure'; cutoff: Date | null; approved_by: number | null };

async function leaseApprovedBatch(): Promise<TLeasedBatch | null> {
  const [batch] = await db().query<TLeasedBatch>(
    `UPDATE retention_batches SET locked_until = now() + ${LEASE}
     WHERE id = (SELECT id FROM retention_batches WHERE state = 'approved' AND (locked_until IS NULL OR locked_until < now())
                 ORDER BY approved_at LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING id, kind, cutoff, approved_by`,
    { type: QueryTypes.SELECT },
  );
  return batch ?? null;
}

const renewLease = (batchId: string) =>
  db().query(`UPDATE retention_batches SET locked_until = now() + ${LEASE} WHERE id = $1`, { bind: [batchId] });

/**
 * Marks the batch done and records `retention.destroy` (actor: the director who approved it) in one
 * transaction, then the trail's head after that row, which the certificate carries.
 */
async function finishBatch(batch: TLeasedBatch): Promise<void> {
  // Every item is erased or left out by now: the list is final, and its hash goes into the trail.
  const itemsSha256 = await hashCertificateItems(batch.id);
  await db().transaction(async (transaction) => {
    const [totals] = await db().query<TErasedTotals & { client_id: number | null }>(
      `SELECT ${ERASED_TOTALS_SQL}, (SELECT e.client_id FROM erasure_requests e WHERE e.batch_id = $1 LIMIT 1) AS client_id
       FROM retention_items WHERE batch_id = $1`,
      { bind: [batch.id], type: QueryTypes.SELECT, transaction },
    );
    const [done] = await db().query(
      `UPDATE retention_batches SET state = 'done', finished_at = now(), locked_until = NULL WHERE id = $1 AND state = 'approved' RETURNING id`,
      { bind: [batch.id], type: QueryTypes.SELECT, transaction },
    );
    if (!done) return;
    // Pages already open read again: an erased client leaves every inbox and badge at once, erased words every thread.
    await announce(RESYNC_PAYLOAD, transaction);
    const t = totals!;
    await recordAuditEvent(
      {
        actor: { userId: batch.approved_by, ip: null },
        action: 'retention.destroy',
        subject: batch.kind === 'erasure' && t.client_id !== null ? `client:${t.client_id}` : `retention:${batch.id}`,
        detail: {
          batchId: batch.id,
          kind: batch.kind,
          records: t.records,
          files: t.files,
          bytes: Number(t.bytes),
          cases: t.cases,
          clients: t.clients,
          leftOut: t.left_out,
          itemsSha256,
        },
      },
      transaction,
    );
    const head = await readChainHead(db(), transaction);
    await db().query('UPDATE retention_batches SET audit_head_id = $2, audit_head_hash = $3, items_sha256 = $4 WHERE id = $1', {
      bind: [batch.id, head.id, head.hash, itemsSha256],
      transaction,
    });
  });
  await computeCertificateHash(batch.id);
}

/**
 * Erases one leased batch to the end; returns whether there was one. `stopping` is asked between
 * chunks: a server shutting down lets its lease run out and the batch is carried on later.
 */
export async function runApprovedBatch(logger: TLogger, stopping: () => boolean = () => false): Promise<boolean> {
  const batch = await leaseApprovedBatch();
  if (!batch) return false;
  try {
    for (const kind of ERASE_ORDER) {
      while ((await eraseChunk(batch, kind)) > 0) {
        if (stopping()) return false;
        await renewLease(batch.id);
      }
    }
    await finishBatch(batch);
  } catch (error) {
    // Taken up again shortly (by any instance) rather than when the whole lease has run out; what
    // the failed chunk did was rolled back with it.
    await db()
      .query(`UPDATE retention_batches SET locked_until = now() + ${RETRY_AFTER} WHERE id = $1`, { bind: [batch.id] })
      .catch(() => undefined);
    throw error;
  }
  logger.info({ batchId: batch.id, kind: batch.kind }, 'retention batch destroyed');
  return true;
}

/** Polls for approved batches until the returned stop is called (which waits for the chunk in hand); failures are logged and tried again. */
export function scheduleRetentionWork(logger: TLogger): () => Promise<void> {
  let current: Promise<void> | null = null;
  let stopped = false;
  const poll = () => {
    if (current || stopped) return;
    current = (async () => {
      try {
        while (!stopped && (await runApprovedBatch(logger, () => stopped)));
      } catch (error) {
        warnUnlessStopping(
          logger,
          { error: (error as Error).name, code: (error as { parent?: { code?: string } }).parent?.code },
          'destroying a retention batch failed',
        );
      } finally {
        current = null;
      }
    })();
  };
  poll();
  const timer = setInterval(poll, POLL_MS).unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await current;
  };
}
