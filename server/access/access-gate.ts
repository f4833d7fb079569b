import type { Transaction } from 'sequelize';
import { AppError } from '../core/errors';
import { queryRows, sql, type Sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { noteDenial } from './record-denial';

/** A client or a case: what a wall stands around. */
export type TSubject = { clientId: number } | { caseId: number };

const NOT_FOUND = { client: 'Client not found.', case: 'Case not found.', record: 'Message not found.' } as const;

export const subjectKeyOf = (subject: TSubject): string =>
  'clientId' in subject ? `client:${subject.clientId}` : `case:${subject.caseId}`;

type TCheckRow = { found: boolean; visible: boolean; screened: boolean };

/**
 * Whether `reader` may see what `query` asks about (one row: `found`, `visible`, `screened`):
 * `missing` when there is no such thing; a walled attempt is noted on the audit trail
 * (server/access/README.md "What the trail records") — the firm learns who tried, the person learns nothing.
 */
async function checkVisible(
  reader: TReader,
  query: Sql,
  subject: string,
  transaction?: Transaction,
): Promise<'visible' | 'missing' | 'walled'> {
  const [row] = await queryRows<TCheckRow>(query, { transaction });
  if (!row?.found) return 'missing';
  if (row.visible) return 'visible';
  noteDenial(reader, subject, row.screened ? 'screen' : 'restriction');
  return 'walled';
}

/**
 * The check for a matter of client `clientId` and case `caseId` (SQL of the looked-up row, `0` where
 * there is none): the walls are asked of the ids whether or not the row exists, so a missing record
 * costs the same probes as a walled one and the answer's time tells nothing.
 */
const checkOf = (reader: TReader, found: Sql, clientId: Sql, caseId: Sql, from: Sql): Sql =>
  sql`SELECT ${found} AS found, ${visibleTo(reader, clientId, caseId)} AS visible,
      EXISTS (SELECT 1 FROM access_screens s WHERE s.user_id = ${reader.id}
        AND ((s.subject_type = 'client' AND s.subject_id = ${clientId}) OR (s.subject_type = 'case' AND s.subject_id = ${caseId}))) AS screened
    FROM (SELECT 1) one ${from}`;

const checkSubject = (reader: TReader, subject: TSubject, transaction?: Transaction) =>
  checkVisible(
    reader,
    'clientId' in subject
      ? checkOf(
          reader,
          sql`c.id IS NOT NULL`,
          sql`${subject.clientId}::int`,
          sql`0`,
          sql`LEFT JOIN clients c ON c.id = ${subject.clientId}`,
        )
      : checkOf(
          reader,
          sql`k.id IS NOT NULL`,
          sql`coalesce(k.client_id, 0)`,
          sql`${subject.caseId}::int`,
          sql`LEFT JOIN cases k ON k.id = ${subject.caseId}`,
        ),
    subjectKeyOf(subject),
    transaction,
  );

const checkRecord = (reader: TReader, communicationId: number) =>
  checkVisible(
    reader,
    checkOf(
      reader,
      sql`c.id IS NOT NULL`,
      sql`coalesce(c.client_id, 0)`,
      sql`coalesce(c.case_id, 0)`,
      sql`LEFT JOIN communications c ON c.id = ${communicationId}`,
    ),
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
