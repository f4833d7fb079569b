import { QueryTypes, type Sequelize } from 'sequelize';
import type { TAttachment, TCommunication } from '../../shared/communication';
import { Case, Communication, withDetails } from '../db/models';
import { AppError } from '../errors';
import { assertClientExists } from './clients';

const TIMELINE_LIMIT = 500;

async function listCommunications(where: { clientId: number } | { caseId: number }): Promise<TCommunication[]> {
  const rows = await Communication.findAll({
    where,
    order: [['createdAt', 'DESC'], ['id', 'DESC']],
    limit: TIMELINE_LIMIT,
  });
  return (await withDetails(rows)).map((row) => row.toDto());
}

async function assertCaseExists(caseId: number): Promise<void> {
  if (!(await Case.findByPk(caseId, { attributes: ['id'] }))) throw new AppError('NOT_FOUND', 'Case not found.');
}

/** Every record type for the client, newest first. */
export async function getClientTimeline(clientId: number): Promise<{ items: TCommunication[] }> {
  await assertClientExists(clientId);
  return { items: await listCommunications({ clientId }) };
}

/** Every record type filed on the case, newest first. */
export async function getCaseTimeline(caseId: number): Promise<{ items: TCommunication[] }> {
  await assertCaseExists(caseId);
  return { items: await listCommunications({ caseId }) };
}

/** A file on a client's or case's file, with the message it came or went with. */
export type TDocumentItem = TAttachment & { communicationId: number; direction: 'inbound' | 'outbound'; createdAt: Date; caseId: number | null; clientId: number | null };

/** Every file on the client's (or case's) chat records, newest first. */
export async function listDocuments(sequelize: Sequelize, where: { clientId: number } | { caseId: number }): Promise<{ items: TDocumentItem[] }> {
  if ('clientId' in where) await assertClientExists(where.clientId);
  else await assertCaseExists(where.caseId);
  const items = await sequelize.query<TDocumentItem>(
    `SELECT a.id, a.kind, a.mime_type AS "mimeType", a.file_name AS "fileName", a.size, a.state, a.error,
            c.id AS "communicationId", c.direction, coalesce(c.provider_timestamp, c.created_at) AS "createdAt", c.case_id AS "caseId", c.client_id AS "clientId"
     FROM attachments a JOIN communications c ON c.id = a.communication_id
     WHERE ${'clientId' in where ? 'c.client_id' : 'c.case_id'} = $1
     ORDER BY c.created_at DESC, a.id DESC
     LIMIT ${TIMELINE_LIMIT}`,
    { bind: ['clientId' in where ? where.clientId : where.caseId], type: QueryTypes.SELECT },
  );
  return { items: items.map((item) => ({ ...item, createdAt: new Date(item.createdAt) })) };
}
