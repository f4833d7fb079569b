import { QueryTypes } from 'sequelize';
import { assertSubjectVisible, subjectKeyOf, type TSubject } from '../access';
import { actorOf, recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import { setTransactionActor } from '../core/db/transaction-actor';
import { AppError } from '../core/errors';
import { queryRows, sql, type Sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';

// Legal holds (server/records/README.md "Records"): a dispute's records are kept whatever their age. A hold on a client
// covers the client and every case of theirs; a hold on a case covers that case and its records,
// and the client's name with it (a case needs the name of whose it is). Retention and erasure both
// read these predicates, so a hold placed while a batch runs stops it at its next chunk.

/** SQL: whether a live hold covers a record or case of this client and case (SQL expressions, as sql`c.client_id`). */
export const isHeld = (clientId: Sql, caseId: Sql): Sql =>
  sql`EXISTS (SELECT 1 FROM legal_holds h WHERE h.released_at IS NULL AND (h.client_id = ${clientId} OR h.case_id = ${caseId}))`;

/** SQL: whether a live hold covers the client (an SQL expression) or any case of theirs. */
export const isClientHeld = (clientId: Sql): Sql =>
  sql`EXISTS (SELECT 1 FROM legal_holds h LEFT JOIN cases hk ON hk.id = h.case_id
           WHERE h.released_at IS NULL AND (h.client_id = ${clientId} OR hk.client_id = ${clientId}))`;

export type THold = {
  id: number;
  subject: { type: 'client' | 'case'; id: number; label: string; clientId: number };
  reason: string;
  placedBy: { id: number; name: string } | null;
  placedAt: Date;
  releasedBy: { id: number; name: string } | null;
  releasedAt: Date | null;
};

/** Places a hold (directors); NOT_FOUND for a client or case that does not exist or is walled from the reader. */
export async function placeHold(reader: TReader, subject: TSubject, reason: string): Promise<{ id: number }> {
  return db().transaction(async (transaction) => {
    await setTransactionActor(transaction, reader.id);
    await assertSubjectVisible(reader, subject, transaction);
    const clientId = 'clientId' in subject ? subject.clientId : null;
    const caseId = 'caseId' in subject ? subject.caseId : null;
    const [row] = await db().query<{ id: number }>(
      'INSERT INTO legal_holds (client_id, case_id, reason, placed_by) VALUES ($1, $2, $3, $4) RETURNING id',
      { bind: [clientId, caseId, reason, reader.id], type: QueryTypes.SELECT, transaction },
    );
    await recordAuditEvent(
      { actor: actorOf(reader), action: 'hold.place', subject: subjectKeyOf(subject), detail: { holdId: row!.id, reason } },
      transaction,
    );
    return { id: row!.id };
  });
}

/** Releases a live hold (directors); a released one is CONFLICT, one on a walled matter NOT_FOUND. */
export async function releaseHold(reader: TReader, holdId: number): Promise<{ id: number; releasedAt: Date }> {
  return db().transaction(async (transaction) => {
    await setTransactionActor(transaction, reader.id);
    const [hold] = await db().query<{ client_id: number | null; case_id: number | null; released_at: Date | null }>(
      'SELECT client_id, case_id, released_at FROM legal_holds WHERE id = $1 FOR UPDATE',
      { bind: [holdId], type: QueryTypes.SELECT, transaction },
    );
    if (!hold) throw new AppError('NOT_FOUND', 'There is no such hold.');
    const subject: TSubject = hold.client_id !== null ? { clientId: hold.client_id } : { caseId: hold.case_id! };
    await assertSubjectVisible(reader, subject, transaction).catch(() => {
      throw new AppError('NOT_FOUND', 'There is no such hold.');
    });
    if (hold.released_at) throw new AppError('CONFLICT', 'This hold was already released.');
    const [released] = await db().query<{ released_at: Date }>(
      'UPDATE legal_holds SET released_at = now(), released_by = $2 WHERE id = $1 RETURNING released_at',
      { bind: [holdId, reader.id], type: QueryTypes.SELECT, transaction },
    );
    await recordAuditEvent(
      { actor: actorOf(reader), action: 'hold.release', subject: subjectKeyOf(subject), detail: { holdId } },
      transaction,
    );
    return { id: holdId, releasedAt: new Date(released!.released_at) };
  });
}

/**
 * Holds the reader may see, live ones first, newest first: all of them, or a client's (its own and
 * its cases') or a case's. Released holds are kept and listed when asked for.
 */
export async function listHolds(
  reader: TReader,
  filter: { clientId?: number; caseId?: number; includeReleased?: boolean } = {},
): Promise<THold[]> {
  const [clientId, caseId] = [filter.clientId ?? null, filter.caseId ?? null];
  const rows = await queryRows<{
    id: number;
    client_id: number | null;
    case_id: number | null;
    subject_client_id: number;
    label: string;
    reason: string;
    placed_by: number | null;
    placed_by_name: string | null;
    placed_at: Date;
    released_by: number | null;
    released_by_name: string | null;
    released_at: Date | null;
  }>(
    sql`SELECT h.id, h.client_id, h.case_id, coalesce(h.client_id, k.client_id) AS subject_client_id,
            CASE WHEN h.client_id IS NOT NULL THEN c.name ELSE k.reference || ' ' || k.title END AS label,
            h.reason, h.placed_by, pu.name AS placed_by_name, h.placed_at, h.released_by, ru.name AS released_by_name, h.released_at
     FROM legal_holds h
     LEFT JOIN cases k ON k.id = h.case_id
     LEFT JOIN clients c ON c.id = h.client_id
     LEFT JOIN users pu ON pu.id = h.placed_by
     LEFT JOIN users ru ON ru.id = h.released_by
     WHERE (${filter.includeReleased ?? false}::boolean OR h.released_at IS NULL)
       AND (${clientId}::int IS NULL OR h.client_id = ${clientId} OR k.client_id = ${clientId})
       AND (${caseId}::int IS NULL OR h.case_id = ${caseId})
       AND ${visibleTo(reader, sql`coalesce(h.client_id, k.client_id)`, sql`h.case_id`)}
     ORDER BY h.released_at IS NOT NULL, h.placed_at DESC, h.id DESC
     LIMIT 500`,
  );
  return rows.map((r) => ({
    id: r.id,
    subject: {
      type: r.client_id !== null ? 'client' : 'case',
      id: r.client_id ?? r.case_id!,
      label: r.label,
      clientId: r.subject_client_id,
    },
    reason: r.reason,
    placedBy: r.placed_by === null ? null : { id: r.placed_by, name: r.placed_by_name ?? 'Former user' },
    placedAt: new Date(r.placed_at),
    releasedBy: r.released_by === null ? null : { id: r.released_by, name: r.released_by_name ?? 'Former user' },
    releasedAt: r.released_at ? new Date(r.released_at) : null,
  }));
}
