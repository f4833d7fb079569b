import { QueryTypes } from 'sequelize';
import type { TAttachment, TCommunication } from '../../shared/communication';
import { Case, communicationDtoOf, withDetails } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { readRecordPage } from '../core/record-pages';
import { db } from '../core/db/db';
import { assertClientExists } from './clients';

const TIMELINE_LIMIT = 500;

/** A page of a timeline; pass `nextCursor` back for the page after it. */
export type TTimelinePage = { cursor?: string; limit?: number };
export type TTimeline = { items: TCommunication[]; nextCursor: string | null };

/** A page of the scope's records; `assertExists` runs only when the page is empty (records imply their client or case). */
async function listCommunications(
  scope: { column: 'client_id' | 'case_id'; id: number },
  page: TTimelinePage,
  assertExists: () => Promise<void>,
): Promise<TTimeline> {
  const { rows, next } = await readRecordPage({ ...scope, chatOnly: false }, { cursor: page.cursor, limit: page.limit ?? TIMELINE_LIMIT });
  if (rows.length === 0) await assertExists();
  return { items: (await withDetails(rows)).map(communicationDtoOf), nextCursor: next };
}

async function assertCaseExists(caseId: number): Promise<void> {
  if (!(await Case.findByPk(caseId, { attributes: ['id'] }))) throw new AppError('NOT_FOUND', 'Case not found.');
}

/** Every record type for the client, newest first, a page at a time. */
export async function getClientTimeline(clientId: number, page: TTimelinePage = {}): Promise<TTimeline> {
  return listCommunications({ column: 'client_id', id: clientId }, page, () => assertClientExists(clientId));
}

/** Every record type filed on the case, newest first, a page at a time. */
export async function getCaseTimeline(caseId: number, page: TTimelinePage = {}): Promise<TTimeline> {
  return listCommunications({ column: 'case_id', id: caseId }, page, () => assertCaseExists(caseId));
}

/** A file on a client's or case's file, with the message it came or went with. */
export type TDocumentItem = TAttachment & {
  communicationId: number;
  direction: 'inbound' | 'outbound';
  createdAt: Date;
  caseId: number | null;
  clientId: number | null;
};

/** Every file on the client's (or case's) chat records, newest first. */
export async function listDocuments(where: { clientId: number } | { caseId: number }): Promise<{ items: TDocumentItem[] }> {
  if ('clientId' in where) await assertClientExists(where.clientId);
  else await assertCaseExists(where.caseId);
  const items = await db().query<TDocumentItem>(
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
