import type { TAttachment, TCommunication } from '../../shared/communication';
import { assertSubjectVisible } from '../access';
import { communicationDtoOf, withDetails } from '../core/db/models/index';
import { readRecordPage } from '../core/record-pages';
import { queryRows, sql, sqlInteger } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';

const TIMELINE_LIMIT = 500;

/** A page of a timeline; pass `nextCursor` back for the page after it. */
export type TTimelinePage = { cursor?: string; limit?: number };
export type TTimeline = { items: TCommunication[]; nextCursor: string | null };

/** A page of the scope's records the reader may see; NOT_FOUND for a client or case that is missing or walled. */
async function listCommunications(
  reader: TReader,
  scope: { column: 'client_id' | 'case_id'; id: number },
  page: TTimelinePage,
): Promise<TTimeline> {
  const { rows, next } = await readRecordPage(
    { ...scope, chatOnly: false },
    { cursor: page.cursor, limit: page.limit ?? TIMELINE_LIMIT, viewer: reader },
  );
  // Records on the page imply a client or case the reader may see (a walled one's are all left
  // out): only an empty page asks whether it exists and is theirs to see.
  if (rows.length === 0) await assertSubjectVisible(reader, scope.column === 'client_id' ? { clientId: scope.id } : { caseId: scope.id });
  return { items: (await withDetails(rows)).map(communicationDtoOf), nextCursor: next };
}

/** Every record type for the client, newest first, a page at a time. */
export async function getClientTimeline(reader: TReader, clientId: number, page: TTimelinePage = {}): Promise<TTimeline> {
  return listCommunications(reader, { column: 'client_id', id: clientId }, page);
}

/** Every record type filed on the case, newest first, a page at a time. */
export async function getCaseTimeline(reader: TReader, caseId: number, page: TTimelinePage = {}): Promise<TTimeline> {
  return listCommunications(reader, { column: 'case_id', id: caseId }, page);
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
export async function listDocuments(
  reader: TReader,
  where: { clientId: number } | { caseId: number },
): Promise<{ items: TDocumentItem[] }> {
  await assertSubjectVisible(reader, where);
  const items = await queryRows<TDocumentItem>(
    sql`SELECT a.id, a.kind, a.mime_type AS "mimeType", a.file_name AS "fileName", a.size, a.state, a.error, a.erased_at AS "erasedAt",
            c.id AS "communicationId", c.direction, coalesce(c.provider_timestamp, c.created_at) AS "createdAt", c.case_id AS "caseId", c.client_id AS "clientId"
     FROM attachments a JOIN communications c ON c.id = a.communication_id
     WHERE ${'clientId' in where ? sql`c.client_id = ${where.clientId}` : sql`c.case_id = ${where.caseId}`}
       AND ${visibleTo(reader, sql`c.client_id`, sql`c.case_id`)}
     ORDER BY c.created_at DESC, a.id DESC
     LIMIT ${sqlInteger(TIMELINE_LIMIT)}`,
  );
  return {
    // erasedAt only on an erased file: every other keeps the shape it always had.
    items: items.map(({ erasedAt, ...item }) => ({
      ...item,
      createdAt: new Date(item.createdAt),
      ...(erasedAt ? { erasedAt: new Date(erasedAt) } : {}),
    })),
  };
}
