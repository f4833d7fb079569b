import type { TReadReceiptMode } from '../../shared/read-receipts';
import { recordAuditEvent, type TActor } from '../audit';
import { db } from '../core/db/db';
import { queryRows, sql } from '../core/sql';

// The firm's read-receipt policy is one row (migration 0036); none means READ_RECEIPTS, the first
// default (server/messaging/README.md "Read receipts"). Saves are serialised so each audit event
// names the mode it replaced.

const SAVE_LOCK_KEY = 7_340_036;

export type TReadReceiptPolicyView = {
  mode: TReadReceiptMode;
  updatedAt: Date | null;
  updatedBy: { id: number; name: string } | null;
};

type TRow = { mode: TReadReceiptMode; updatedAt: Date | null; updatedById: number | null; updatedByName: string | null };

export async function readReadReceiptPolicy(defaultMode: TReadReceiptMode): Promise<TReadReceiptPolicyView> {
  const [row] = await queryRows<TRow>(sql`
    SELECT coalesce(p.mode, ${defaultMode}) AS mode, p.updated_at AS "updatedAt", u.id AS "updatedById", u.name AS "updatedByName"
    FROM (SELECT 1) one LEFT JOIN read_receipt_policy p ON true LEFT JOIN users u ON u.id = p.updated_by`);
  const { updatedById, updatedByName, ...policy } = row!;
  return { ...policy, updatedBy: updatedById === null ? null : { id: updatedById, name: updatedByName ?? '' } };
}

/** Saves the mode (a director, checked by the router), audited `settings.read_receipts` with from and to; the same mode again changes nothing. */
export async function saveReadReceiptPolicy(
  actor: TActor,
  mode: TReadReceiptMode,
  defaultMode: TReadReceiptMode,
): Promise<TReadReceiptPolicyView> {
  await db().transaction(async (transaction) => {
    await queryRows(sql`SELECT pg_advisory_xact_lock(${SAVE_LOCK_KEY})`, { transaction });
    const [before] = await queryRows<{ mode: TReadReceiptMode }>(sql`SELECT mode FROM read_receipt_policy`, { transaction });
    const from = before?.mode ?? defaultMode;
    if (before && from === mode) return;
    await queryRows(
      sql`INSERT INTO read_receipt_policy (singleton, mode, updated_by, updated_at) VALUES (true, ${mode}, ${actor.userId}, now())
          ON CONFLICT (singleton) DO UPDATE SET mode = excluded.mode, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      { transaction },
    );
    await recordAuditEvent(
      { actor, action: 'settings.read_receipts', subject: 'read_receipt_policy', detail: { from, to: mode } },
      transaction,
    );
  });
  return readReadReceiptPolicy(defaultMode);
}
