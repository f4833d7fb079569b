import type { Sequelize } from 'sequelize';
import { empty, queryRows, sql } from '../core/sql';
import { visibleTo } from '../core/visibility';

/**
 * A file the firm holds whose bytes are the copy's (server/export/README.md "Evidence exports", Verify a copy): an
 * exhibit taken out of a bundle, or any photo or document a client sent or the firm sent them.
 * Dates as ISO strings.
 */
export type TStoredFile = {
  attachmentId: number;
  fileName: string | null;
  mimeType: string;
  bytes: number;
  direction: 'inbound' | 'outbound' | null;
  /** When its message was sent (the provider's time, else when it was stored). */
  at: string;
  subject: { type: 'client'; id: number; name: string };
  caseId: number | null;
  /** How many other stored files (that the viewer may see) have the same bytes. */
  others: number;
};

type TRow = {
  id: number;
  fileName: string | null;
  mimeType: string;
  size: string | number | null;
  direction: 'inbound' | 'outbound' | null;
  at: Date;
  clientId: number;
  clientName: string;
  caseId: number | null;
  matches: string | number;
};

/**
 * The earliest stored file with this SHA-256 on a client's record, or null. `viewerId` is who asks:
 * only files they may see are found (visibleTo; a walled file is answered as no file at all);
 * null for the operator's command line, which has no walls. A file whose bytes were destroyed
 * (erased under retention) is not held, so a copy of it is not "identical to a file the firm holds".
 * Found through the stored files' SHA-256 index (migration 0022).
 */
export async function findStoredFile(database: Sequelize, sha256: string, viewerId: number | null): Promise<TStoredFile | null> {
  const [row] = await queryRows<TRow>(
    sql`SELECT a.id, a.file_name AS "fileName", a.mime_type AS "mimeType", a.size, m.direction,
            coalesce(m.provider_timestamp, m.created_at) AS at, c.id AS "clientId", c.name AS "clientName", m.case_id AS "caseId",
            count(*) OVER () AS matches
     FROM attachments a
       JOIN communications m ON m.id = a.communication_id
       JOIN clients c ON c.id = m.client_id
     WHERE a.sha256 = ${sha256.toLowerCase()} AND a.state = 'stored' AND a.erased_at IS NULL
       ${viewerId === null ? empty : sql`AND ${visibleTo({ id: viewerId }, sql`m.client_id`, sql`m.case_id`)}`}
     ORDER BY m.created_at, a.id
     LIMIT 1`,
    { on: database },
  );
  if (!row) return null;
  return {
    attachmentId: row.id,
    fileName: row.fileName,
    mimeType: row.mimeType,
    bytes: Number(row.size ?? 0),
    direction: row.direction,
    at: new Date(row.at).toISOString(),
    subject: { type: 'client', id: row.clientId, name: row.clientName },
    caseId: row.caseId,
    others: Number(row.matches) - 1,
  };
}

/** What the file is about, as the audit trail names a subject: its case when filed on one, else its client. */
export const subjectOfStoredFile = (file: TStoredFile) => (file.caseId !== null ? `case:${file.caseId}` : `client:${file.subject.id}`);
