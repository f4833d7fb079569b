import { QueryTypes, type Transaction } from 'sequelize';
import { actorOf, recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, sql, type Sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';

/** A client or a case: what a wall stands around. */
export type TSubject = { clientId: number } | { caseId: number };

const NOT_FOUND = { client: 'Client not found.', case: 'Case not found.', record: 'Message not found.' } as const;

export const subjectKeyOf = (subject: TSubject): string =>
  'clientId' in subject ? `client:${subject.clientId}` : `case:${subject.caseId}`;

/**
 * Whether `reader` may see what `query` (one row with a `visible` column, or none) asks about:
 * `missing` when there is no such thing; a walled attempt goes on the audit trail
 * (server/access/README.md "Ethical walls") — the firm learns who tried, the person learns nothing.
 */
async function checkVisible(
  reader: TReader,
  query: Sql,
  subject: string,
  transaction?: Transaction,
): Promise<'visible' | 'missing' | 'walled'> {
  const [row] = await queryRows<{ visible: boolean }>(query, { transaction });
  if (!row) return 'missing';
  if (row.visible) return 'visible';
  await recordAuditEvent({ actor: actorOf(reader), action: 'access.denied', subject, detail: { path: reader.path } });
  return 'walled';
}

const checkSubject = (reader: TReader, subject: TSubject, transaction?: Transaction) =>
  checkVisible(
    reader,
    'clientId' in subject
      ? sql`SELECT ${visibleTo(reader, sql`c.id`, null)} AS visible FROM clients c WHERE c.id = ${subject.clientId}`
      : sql`SELECT ${visibleTo(reader, sql`k.client_id`, sql`k.id`)} AS visible FROM cases k WHERE k.id = ${subject.caseId}`,
    subjectKeyOf(subject),
    transaction,
  );

const checkRecord = (reader: TReader, communicationId: number) =>
  checkVisible(
    reader,
    sql`SELECT ${visibleTo(reader, sql`c.client_id`, sql`c.case_id`)} AS visible FROM communications c WHERE c.id = ${communicationId}`,
    `communication:${communicationId}`,
  );

/**
 * Throws NOT_FOUND unless the client or case exists and `reader` may see it (one query either way),
 * worded exactly as for one that does not exist.
 */
export async function assertSubjectVisible(reader: TReader, subject: TSubject, transaction?: Transaction): Promise<void> {
  if ((await checkSubject(reader, subject, transaction)) !== 'visible')
    throw new AppError('NOT_FOUND', 'clientId' in subject ? NOT_FOUND.client : NOT_FOUND.case);
}

/** Throws NOT_FOUND (as for a missing one) unless the communication exists and `reader` may see it. */
export async function assertRecordVisible(reader: TReader, communicationId: number): Promise<void> {
  if ((await checkRecord(reader, communicationId)) !== 'visible') throw new AppError('NOT_FOUND', NOT_FOUND.record);
}

/** The same question for plain HTTP routes, which answer their own 404: whether the reader may see it. */
export const seesSubject = async (reader: TReader, subject: TSubject): Promise<boolean> =>
  (await checkSubject(reader, subject)) === 'visible';
export const seesRecord = async (reader: TReader, communicationId: number): Promise<boolean> =>
  (await checkRecord(reader, communicationId)) === 'visible';

/**
 * A director screened from any matter may not make anyone a director (add one, promote one,
 * reactivate one): the new director could lift the screen for them (server/access/README.md "Ethical walls").
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
