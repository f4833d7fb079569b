import { QueryTypes, type Transaction } from 'sequelize';
import { recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { visibleToSql, type TReader } from '../core/visibility';

/** A client or a case: what a wall stands around. */
export type TSubject = { clientId: number } | { caseId: number };

const NOT_FOUND = { client: 'Client not found.', case: 'Case not found.', record: 'Message not found.' } as const;

export const subjectKeyOf = (subject: TSubject): string =>
  'clientId' in subject ? `client:${subject.clientId}` : `case:${subject.caseId}`;

/**
 * NOT_FOUND, worded exactly as for a record that does not exist, and the attempt on the audit trail
 * (README "Ethical walls"): a walled person learns nothing, and the firm learns who tried.
 */
export async function refuseWalled(reader: TReader, subject: string, kind: keyof typeof NOT_FOUND): Promise<never> {
  await recordAuditEvent({ actor: { userId: reader.id, ip: reader.ip }, action: 'access.denied', subject, detail: { path: reader.path } });
  throw new AppError('NOT_FOUND', NOT_FOUND[kind]);
}

/** Throws NOT_FOUND unless the client or case exists and `reader` may see it (one query either way). */
export async function assertSubjectVisible(reader: TReader, subject: TSubject, transaction?: Transaction): Promise<void> {
  const [sql, kind] =
    'clientId' in subject
      ? [`SELECT ${visibleToSql('$2', 'c.id', 'NULL')} AS visible FROM clients c WHERE c.id = $1`, 'client' as const]
      : [`SELECT ${visibleToSql('$2', 'k.client_id', 'k.id')} AS visible FROM cases k WHERE k.id = $1`, 'case' as const];
  const [row] = await db().query<{ visible: boolean }>(sql, {
    bind: ['clientId' in subject ? subject.clientId : subject.caseId, reader.id],
    type: QueryTypes.SELECT,
    transaction,
  });
  if (!row) throw new AppError('NOT_FOUND', NOT_FOUND[kind]);
  if (!row.visible) await refuseWalled(reader, subjectKeyOf(subject), kind);
}

/** Throws NOT_FOUND (as for a missing one) unless the communication exists and `reader` may see it. */
export async function assertRecordVisible(reader: TReader, communicationId: number): Promise<void> {
  const [row] = await db().query<{ visible: boolean }>(
    `SELECT ${visibleToSql('$2', 'c.client_id', 'c.case_id')} AS visible FROM communications c WHERE c.id = $1`,
    { bind: [communicationId, reader.id], type: QueryTypes.SELECT },
  );
  if (!row) throw new AppError('NOT_FOUND', NOT_FOUND.record);
  if (!row.visible) await refuseWalled(reader, `communication:${communicationId}`, 'record');
}

/**
 * A director screened from any matter may not make anyone a director (add one, promote one,
 * reactivate one): the new director could lift the screen for them (README "Ethical walls").
 */
export async function assertMayAppointDirectors(reader: TReader): Promise<void> {
  const [row] = await db().query<{ screened: boolean }>('SELECT EXISTS (SELECT 1 FROM access_screens WHERE user_id = $1) AS screened', {
    bind: [reader.id],
    type: QueryTypes.SELECT,
  });
  if (row?.screened)
    throw new AppError(
      'FORBIDDEN',
      'You are screened from a matter, so another director makes directors: a new director could lift your screen.',
    );
}
