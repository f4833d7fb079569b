import { QueryTypes, type Transaction } from 'sequelize';
import { actorOf, recordAuditEvent, type TAuditDetail } from '../audit';
import { seesSubject } from '../access';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import type { TReader } from '../core/visibility';
import { announceScheduledChange } from './announce-scheduled-change';
import { checkScheduledBody, checkSendAt } from './scheduled-inputs';
import { assertMayGoUnlessReplied } from './unless-replied';

export type TScheduledState = 'scheduled' | 'sent' | 'not_sent' | 'cancelled';
export type TScheduledChange = { id: number; state: TScheduledState; sendAt: Date };

const NOT_FOUND = 'Scheduled message not found.';

/** The changes to a waiting send the trail records; each names the send and its kind, and what changed. */
type TChangeAction = 'chat.reschedule' | 'chat.edit_scheduled' | 'chat.cancel_scheduled';

type TLockedRow = {
  id: number;
  kind: 'text' | 'template' | 'file';
  clientId: number;
  state: TScheduledState;
  sendAt: Date;
  /** A worker holds it: it is due and being sent at this moment. */
  sending: boolean;
  toDigits: string;
  unlessReplied: boolean;
};

/**
 * The scheduled send `id`, if `reader` may change it: one they may see (a walled one is NOT_FOUND,
 * worded as a missing one: server/access/README.md "Ethical walls"), and their own unless they are a director.
 * The firm's automatic replies are no person's to change.
 */
async function findChangeable(reader: TReader, id: number): Promise<void> {
  const [row] = await db().query<{ createdBy: number; clientId: number; caseId: number | null }>(
    `SELECT created_by AS "createdBy", client_id AS "clientId", case_id AS "caseId" FROM scheduled_sends
     WHERE id = $1 AND kind <> 'auto_reply' AND client_id IS NOT NULL`,
    { bind: [id], type: QueryTypes.SELECT },
  );
  if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
  // One check at a time, each audited when walled, as the access gate does.
  if (!(await seesSubject(reader, { clientId: row.clientId }))) throw new AppError('NOT_FOUND', NOT_FOUND);
  if (row.caseId !== null && !(await seesSubject(reader, { caseId: row.caseId }))) throw new AppError('NOT_FOUND', NOT_FOUND);
  if (row.createdBy !== reader.id && reader.role !== 'director')
    throw new AppError('FORBIDDEN', 'Only the person who scheduled this message, or a director, can change it.');
}

/** A row still waiting: scheduled, or not sent at its time. */
type TWaitingRow = TLockedRow & { state: 'scheduled' | 'not_sent' };

/** Locks the row for the change; refuses one that is no longer waiting (CONFLICT, saying what became of it). */
async function lockWaiting(
  id: number,
  transaction: Transaction,
  allow: { notSent?: boolean; sending?: boolean } = {},
): Promise<TWaitingRow> {
  const [row] = await db().query<TLockedRow>(
    `SELECT id, kind, client_id AS "clientId", state, send_at AS "sendAt", coalesce(leased_until > now(), false) AS sending,
            to_digits AS "toDigits", unless_replied AS "unlessReplied"
     FROM scheduled_sends WHERE id = $1 FOR UPDATE`,
    { bind: [id], type: QueryTypes.SELECT, transaction },
  );
  if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
  if (row.state === 'sent') throw new AppError('CONFLICT', 'This message has already been sent: it can no longer be changed.');
  if (row.state === 'cancelled') throw new AppError('CONFLICT', 'This scheduled message has already been cancelled.');
  if (row.state === 'not_sent' && !allow.notSent)
    throw new AppError('CONFLICT', 'This message was not sent at its time (see why beside it): schedule it again to send it.');
  if (row.state === 'scheduled' && row.sending && !allow.sending)
    throw new AppError('CONFLICT', 'This message is being sent right now: it can no longer be changed.');
  return { ...row, id: Number(row.id), state: row.state };
}

async function audit<A extends TChangeAction>(
  reader: TReader,
  action: A,
  row: TLockedRow,
  detail: Omit<TAuditDetail<A>, 'scheduledSendId' | 'kind'>,
  transaction: Transaction,
): Promise<void> {
  await recordAuditEvent<TChangeAction>(
    { actor: actorOf(reader), action, subject: `client:${row.clientId}`, detail: { scheduledSendId: row.id, kind: row.kind, ...detail } },
    transaction,
  );
  await announceScheduledChange(transaction);
}

/**
 * Moves a waiting send to `sendAt`, keeping the rest (whether it waits for no reply, and since when:
 * its created_at); audited `chat.reschedule` (from and to).
 */
export async function rescheduleSend(reader: TReader, id: number, sendAt: Date, now: Date): Promise<TScheduledChange> {
  const at = checkSendAt(sendAt, now);
  await findChangeable(reader, id);
  return db().transaction(async (transaction) => {
    const row = await lockWaiting(id, transaction);
    await assertMayGoUnlessReplied({ kind: row.kind, unlessReplied: row.unlessReplied, digits: row.toDigits, sendAt: at }, transaction);
    await db().query('UPDATE scheduled_sends SET send_at = $2, updated_at = now() WHERE id = $1', { bind: [id, at], transaction });
    await audit(reader, 'chat.reschedule', row, { from: row.sendAt.toISOString(), sendAt: at.toISOString() }, transaction);
    return { id: row.id, state: row.state, sendAt: at };
  });
}

/** Changes the text of a waiting text, or a waiting file's caption; audited `chat.edit_scheduled` (never the words). */
export async function editScheduledSend(reader: TReader, id: number, body: string): Promise<TScheduledChange> {
  await findChangeable(reader, id);
  return db().transaction(async (transaction) => {
    const row = await lockWaiting(id, transaction);
    if (row.kind === 'template')
      throw new AppError('INVALID_INPUT', 'A template’s words are fixed: cancel it and schedule another.', {
        body: ['A template cannot be edited.'],
      });
    const text = checkScheduledBody(body, row.kind === 'file');
    await db().query('UPDATE scheduled_sends SET body = $2, updated_at = now() WHERE id = $1', { bind: [id, text || null], transaction });
    await audit(reader, 'chat.edit_scheduled', row, { sendAt: row.sendAt.toISOString() }, transaction);
    return { id: row.id, state: row.state, sendAt: row.sendAt };
  });
}

/**
 * Cancels a waiting send: it never goes (a worker about to send it finds it cancelled in the
 * transaction that would write its record). One that was not sent at its time is cancelled too,
 * which takes it off the lists. Audited `chat.cancel_scheduled`.
 */
export async function cancelScheduledSend(reader: TReader, id: number): Promise<TScheduledChange> {
  await findChangeable(reader, id);
  return db().transaction(async (transaction) => {
    const row = await lockWaiting(id, transaction, { notSent: true, sending: true });
    await db().query(`UPDATE scheduled_sends SET state = 'cancelled', leased_until = NULL, updated_at = now() WHERE id = $1`, {
      bind: [id],
      transaction,
    });
    await audit(reader, 'chat.cancel_scheduled', row, { sendAt: row.sendAt.toISOString(), was: row.state }, transaction);
    return { id: row.id, state: 'cancelled', sendAt: row.sendAt };
  });
}
