import { communicationFieldsSql, type TCommunicationRecord } from './db/models/index';
import { AppError } from './errors';
import { join, queryRows, raw, sql, sqlInteger, type Sql } from './sql';
import { visibleTo, type TViewer } from './visibility';

/**
 * An opaque page position (server/decisions/0011-keyset-pagination.md): the sort value of the last
 * item shown, as PostgreSQL printed it (so nothing is rounded), and its id. The next page starts exactly after it.
 */
export function encodeCursor(value: string, id: number): string {
  return Buffer.from(JSON.stringify([value, id])).toString('base64url');
}

/**
 * The page out of the rows read for it (one more than `limit`, to know whether another page exists)
 * and the cursor of the page after it: the position of the page's last row, or null at the end.
 */
export function endPage<T extends { id: number }>(
  rows: T[],
  limit: number,
  valueOf: (row: T) => string,
): { rows: T[]; next: string | null } {
  const kept = rows.length > limit ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return { rows: kept, next: rows.length > limit && last ? encodeCursor(valueOf(last), last.id) : null };
}

/** The largest id PostgreSQL's `integer` holds. */
const MAX_ID = 2_147_483_647;

/** The position in a cursor whose value `isValue` accepts; anything else is a clear INVALID_INPUT (never a database error). */
export function decodeCursor(
  cursor: string,
  isValue: (value: string) => boolean,
  refused: { message: string; field: string },
): { value: string; id: number } {
  try {
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(position) && position.length === 2) {
      const [value, id] = position as [unknown, unknown];
      if (typeof value === 'string' && isValue(value) && Number.isSafeInteger(id) && (id as number) > 0 && (id as number) <= MAX_ID)
        return { value, id: id as number };
    }
  } catch {
    // fall through: not one of ours
  }
  throw new AppError('INVALID_INPUT', refused.message, { cursor: [refused.field] });
}

/**
 * Keyset pages of communications, newest first: the cursor holds the last record's `created_at`
 * (microseconds kept) and id, so records arriving meanwhile neither shift nor repeat anything, and
 * no OFFSET is ever counted off.
 */
const TIMESTAMP_TEXT = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d{1,6})?[+-](\d\d)(?::(\d\d))?$/;

/** A timestamptz as PostgreSQL prints it (`created_at::text`), and a real moment: the value half of a time cursor. */
export function isTimestampText(value: string): boolean {
  const parts = TIMESTAMP_TEXT.exec(value);
  if (!parts) return false;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [offsetHours, offsetMinutes] = [Number(parts[8]), Number(parts[9] ?? 0)];
  const date = new Date(Date.UTC(year, month - 1, day));
  const realDay = year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return realDay && hour < 24 && minute < 60 && second < 60 && offsetHours <= 15 && offsetMinutes < 60;
}
const REFUSED = { message: 'That page position is not valid: reload the list.', field: 'Not a cursor from this list.' };

/** Which records: a client's, a case's, or an unlinked number's; chat only or every type. */
export type TRecordScope = { column: 'client_id' | 'case_id'; id: number; chatOnly: boolean } | { unlinkedPhone: string };

/**
 * The most a page's records may weigh (their bodies and metadata), whatever its `limit`: a page
 * ends early rather than carry, say, 500 records each edited twenty times over
 * (server/decisions/0011-keyset-pagination.md). A record heavier than this alone still comes, on a
 * page of its own.
 */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** A page position and size, and who reads it: a page holds only records its reader may see (server/access/README.md "Ethical walls"). */
export type TRecordPage = { cursor?: string; limit: number; viewer: TViewer };

/** A conversation's records: its messages and the firm's internal notes beside them (server/ownership/README.md "Ownership"). */
const CONVERSATION_TYPES = sql`c.type IN ('chat', 'chat_note')`;

/** The statement that reads one page (and one record more): also what the benchmark EXPLAINs. */
export function recordPageQuery(scope: TRecordScope, page: TRecordPage): Sql {
  const where: Sql[] = [visibleTo(page.viewer, sql`c.client_id`, sql`c.case_id`)];
  if ('unlinkedPhone' in scope) where.push(sql`c.client_id IS NULL AND c.peer_phone = ${scope.unlinkedPhone}`, CONVERSATION_TYPES);
  else {
    where.push(sql`c.${raw(scope.column)} = ${scope.id}`);
    if (scope.chatOnly) where.push(CONVERSATION_TYPES);
  }
  if (page.cursor) {
    const after = decodeCursor(page.cursor, isTimestampText, REFUSED);
    where.push(sql`(c.created_at, c.id) < (${after.value}::timestamptz, ${after.id})`);
  }
  // The running weight of the records before each one, and whether another record follows it, are
  // read as the rows stream (the window only ever looks one row ahead), so the page can end at the
  // byte budget and still say whether more exist.
  const weight = sql`octet_length(c.body) + octet_length(c.metadata::text)`;
  return sql`SELECT * FROM (
     SELECT ${raw(communicationFieldsSql('c'))}, c.created_at::text AS "cursorAt",
            coalesce(sum(${weight}) OVER w, 0) - (${weight}) AS "bytesBefore",
            lead(c.id) OVER w IS NOT NULL AS "hasNext"
     FROM communications c
     WHERE ${join(where, ' AND ')}
     WINDOW w AS (ORDER BY c.created_at DESC, c.id DESC ROWS UNBOUNDED PRECEDING)
     ORDER BY c.created_at DESC, c.id DESC
     LIMIT ${sqlInteger(page.limit + 1)}
   ) page WHERE page."bytesBefore" < ${sqlInteger(MAX_PAGE_BYTES)}`;
}

/**
 * One page of the scope's records, newest first, and the cursor of the page after it (null at the
 * oldest). Reads one record more than the page to know whether another page exists.
 */
export async function readRecordPage(
  scope: TRecordScope,
  page: TRecordPage,
): Promise<{ rows: TCommunicationRecord[]; next: string | null }> {
  // Plain rows, not model instances: a page is read-only, and building 50 models costs more than the query.
  const rows = await queryRows<TCommunicationRecord & { cursorAt: string; bytesBefore: string; hasNext: boolean }>(
    recordPageQuery(scope, page),
  );
  const last = rows[rows.length - 1];
  // Ended by the byte budget: the page is what fit, and the next one starts after it.
  if (rows.length <= page.limit && last?.hasNext) return { rows: rows.map(withoutPaging), next: encodeCursor(last.cursorAt, last.id) };
  const ended = endPage(rows, page.limit, (row) => row.cursorAt);
  return { rows: ended.rows.map(withoutPaging), next: ended.next };
}

function withoutPaging<T extends { bytesBefore?: unknown; hasNext?: unknown }>(row: T): Omit<T, 'bytesBefore' | 'hasNext'> {
  const { bytesBefore: _bytes, hasNext: _next, ...record } = row;
  return record;
}
