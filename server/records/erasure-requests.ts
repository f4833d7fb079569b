import { QueryTypes } from 'sequelize';
import { assertSubjectVisible } from '../access';
import { actorOf, recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { isClientHeld } from './holds';
import { createErasureBatch } from './retention-batches';

// A client's request to be erased (server/records/README.md "Records"): recorded with the day it was received, then
// decided — erased, with a certificate, or refused on one of the grounds the law gives for keeping
// records. A hold refuses it by itself: the hold's dispute is the legal claim.

export const REFUSAL_GROUNDS = ['legal_claims', 'legal_obligation', 'hold'] as const;
export type TRefusalGround = (typeof REFUSAL_GROUNDS)[number];

export type TErasureRequest = {
  id: number;
  client: { id: number; name: string; erased: boolean };
  receivedAt: Date;
  note: string;
  recordedBy: { id: number; name: string } | null;
  recordedAt: Date;
  decision: 'erase' | 'refuse' | null;
  grounds: TRefusalGround | null;
  decidedBy: { id: number; name: string } | null;
  decidedAt: Date | null;
  batch: { id: string; state: string } | null;
  /** Received + one calendar month: the GDPR's time to answer. */
  dueAt: Date;
  /** Where the request stands against its due date: decided, due, due within a week, past it. */
  deadline: TDeadline;
  /** The earliest live hold on the client or a case of theirs: erasing is refused while there is one. */
  hold: TRequestHold | null;
  /** The client's open cases: erasing is refused until they are closed. */
  openCases: number;
};

export type TDeadline = 'decided' | 'due' | 'soon' | 'overdue';
export type TRequestHold = { reason: string; on: 'client' | 'case'; label: string; since: Date };

/** A week before its due date an undecided request warns. */
const WARN_MS = 7 * 24 * 60 * 60_000;

export function deadlineOf(decided: boolean, dueAt: Date, now: Date): TDeadline {
  if (decided) return 'decided';
  if (now.getTime() > dueAt.getTime()) return 'overdue';
  return dueAt.getTime() - now.getTime() <= WARN_MS ? 'soon' : 'due';
}

const NO_REQUEST = 'There is no such erasure request.';

/** Records a request (directors); NOT_FOUND for a client that does not exist or is walled from the reader. */
export async function recordErasureRequest(
  reader: TReader,
  input: { clientId: number; receivedAt: Date; note: string },
): Promise<{ id: number }> {
  if (input.receivedAt.getTime() > Date.now() + 5 * 60_000)
    throw new AppError('INVALID_INPUT', 'The date received cannot be in the future.', { receivedAt: ['cannot be in the future'] });
  return db().transaction(async (transaction) => {
    await assertSubjectVisible(reader, { clientId: input.clientId }, transaction);
    const [row] = await db().query<{ id: number }>(
      'INSERT INTO erasure_requests (client_id, received_at, note, recorded_by) VALUES ($1, $2, $3, $4) RETURNING id',
      { bind: [input.clientId, input.receivedAt, input.note, reader.id], type: QueryTypes.SELECT, transaction },
    );
    await recordAuditEvent(
      {
        actor: actorOf(reader),
        action: 'erasure.request',
        subject: `client:${input.clientId}`,
        detail: { requestId: row!.id, receivedAt: input.receivedAt.toISOString(), noted: input.note.trim() !== '' },
      },
      transaction,
    );
    return { id: row!.id };
  });
}

/**
 * Decides a request once (directors). `erase` starts an erasure batch of everything the client has
 * (its certificate follows when the batch is done); it is refused while a hold covers the client
 * or one of their cases, or while a case of theirs is open. `refuse` needs one of the fixed grounds.
 */
export async function decideErasureRequest(
  reader: TReader,
  input: { requestId: number; decision: 'erase' | 'refuse'; grounds?: TRefusalGround },
): Promise<{ id: number; decision: 'erase' | 'refuse'; grounds: TRefusalGround | null; batchId: string | null }> {
  if (input.decision === 'refuse' && !input.grounds)
    throw new AppError('INVALID_INPUT', 'A refusal needs its grounds.', { grounds: ['choose the grounds for refusing'] });
  if (input.decision === 'erase' && input.grounds)
    throw new AppError('INVALID_INPUT', 'Grounds are given only for a refusal.', { grounds: ['only for a refusal'] });
  return db().transaction(async (transaction) => {
    const [request] = await queryRows<{ client_id: number; decision: string | null; held: boolean; open_cases: number }>(
      sql`SELECT e.client_id, e.decision, ${isClientHeld(sql`e.client_id`)} AS held,
              (SELECT count(*) FROM cases k WHERE k.client_id = e.client_id AND k.status = 'open')::int AS open_cases
       FROM erasure_requests e WHERE e.id = ${input.requestId} FOR UPDATE OF e`,
      { transaction },
    );
    if (!request) throw new AppError('NOT_FOUND', NO_REQUEST);
    await assertSubjectVisible(reader, { clientId: request.client_id }, transaction).catch(() => {
      throw new AppError('NOT_FOUND', NO_REQUEST);
    });
    if (request.decision) throw new AppError('CONFLICT', 'This request has already been decided.');
    let batchId: string | null = null;
    if (input.decision === 'erase') {
      if (request.held)
        throw new AppError('CONFLICT', 'A legal hold covers this client: refuse on the grounds of the hold, or release the hold first.');
      if (request.open_cases > 0)
        throw new AppError(
          'CONFLICT',
          `This client has ${request.open_cases === 1 ? 'an open case: close it' : `${request.open_cases} open cases: close them`} before erasing.`,
        );
      batchId = (await createErasureBatch(reader, request.client_id, transaction)).batchId;
    }
    await db().query(
      'UPDATE erasure_requests SET decision = $2, grounds = $3, decided_by = $4, decided_at = now(), batch_id = $5 WHERE id = $1',
      { bind: [input.requestId, input.decision, input.grounds ?? null, reader.id, batchId], transaction },
    );
    await recordAuditEvent(
      {
        actor: actorOf(reader),
        action: 'erasure.decide',
        subject: `client:${request.client_id}`,
        detail: {
          requestId: input.requestId,
          decision: input.decision,
          ...(input.grounds ? { grounds: input.grounds } : {}),
          ...(batchId ? { batchId } : {}),
        },
      },
      transaction,
    );
    return { id: input.requestId, decision: input.decision, grounds: input.grounds ?? null, batchId };
  });
}

/** Requests about clients the reader may see, undecided first, newest first; one client's when asked. `now`: the clock deadlines are read against. */
export async function listErasureRequests(
  reader: TReader,
  filter: { clientId?: number } = {},
  now: Date = new Date(),
): Promise<TErasureRequest[]> {
  const clientId = filter.clientId ?? null;
  const rows = await queryRows<{
    id: number;
    client_id: number;
    client_name: string;
    erased: boolean;
    received_at: Date;
    note: string;
    recorded_by: number | null;
    recorder: string | null;
    recorded_at: Date;
    decision: 'erase' | 'refuse' | null;
    grounds: TRefusalGround | null;
    decided_by: number | null;
    decider: string | null;
    decided_at: Date | null;
    batch_id: string | null;
    batch_state: string | null;
    due_at: Date;
    hold: (Omit<TRequestHold, 'since'> & { since: string }) | null;
    open_cases: number;
  }>(
    sql`SELECT e.id, e.client_id, c.name AS client_name, c.erased_at IS NOT NULL AS erased, e.received_at, e.note,
            e.recorded_by, ru.name AS recorder, e.recorded_at, e.decision, e.grounds, e.decided_by, du.name AS decider, e.decided_at,
            e.batch_id, b.state AS batch_state, e.received_at + interval '1 month' AS due_at,
            (SELECT json_build_object('reason', h.reason, 'on', CASE WHEN h.case_id IS NULL THEN 'client' ELSE 'case' END,
                      'label', coalesce(hk.reference, c.name), 'since', h.placed_at)
             FROM legal_holds h LEFT JOIN cases hk ON hk.id = h.case_id
             WHERE h.released_at IS NULL AND (h.client_id = e.client_id OR hk.client_id = e.client_id)
             ORDER BY h.placed_at, h.id LIMIT 1) AS hold,
            (SELECT count(*) FROM cases k WHERE k.client_id = e.client_id AND k.status = 'open')::int AS open_cases
     FROM erasure_requests e JOIN clients c ON c.id = e.client_id
     LEFT JOIN users ru ON ru.id = e.recorded_by LEFT JOIN users du ON du.id = e.decided_by
     LEFT JOIN retention_batches b ON b.id = e.batch_id
     WHERE (${clientId}::int IS NULL OR e.client_id = ${clientId}) AND ${visibleTo(reader, sql`e.client_id`, null)}
     ORDER BY e.decision IS NOT NULL, e.received_at DESC, e.id DESC LIMIT 500`,
  );
  const person = (id: number | null, name: string | null) => (id === null ? null : { id, name: name ?? 'Former user' });
  return rows.map((r) => ({
    id: r.id,
    client: { id: r.client_id, name: r.client_name, erased: r.erased },
    receivedAt: new Date(r.received_at),
    note: r.note,
    recordedBy: person(r.recorded_by, r.recorder),
    recordedAt: new Date(r.recorded_at),
    decision: r.decision,
    grounds: r.grounds,
    decidedBy: person(r.decided_by, r.decider),
    decidedAt: r.decided_at ? new Date(r.decided_at) : null,
    batch: r.batch_id ? { id: r.batch_id, state: r.batch_state ?? 'unknown' } : null,
    dueAt: new Date(r.due_at),
    deadline: deadlineOf(r.decision !== null, new Date(r.due_at), now),
    hold: r.hold ? { ...r.hold, since: new Date(r.hold.since) } : null,
    openCases: r.open_cases,
  }));
}
