import type { Sequelize } from 'sequelize';
import { Communication, communicationColumnsSql } from '../db/models';
import { AppError } from '../errors';

/**
 * Keyset pages of communications, newest first (DESIGN "Pagination"): a cursor names the last
 * record of the page before — its `created_at` as PostgreSQL prints it (microseconds kept) and its
 * id — so the next page starts exactly after it, records arriving meanwhile neither shift nor
 * repeat anything, and no OFFSET is ever counted off.
 */
type TPosition = { at: string; id: number };

export function encodeCursor(position: TPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string): TPosition {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof at === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d(:\d\d)?$/.test(at) && Number.isSafeInteger(id) && (id as number) > 0) return { at, id: id as number };
  } catch {
    // fall through: not one of ours
  }
  throw new AppError('INVALID_INPUT', 'That page position is not valid: reload the list.', { cursor: ['Not a cursor from this list.'] });
}

/** Which records: a client's, a case's, or an unlinked number's; chat only or every type. */
export type TRecordScope = { column: 'client_id' | 'case_id'; id: number; chatOnly: boolean } | { unlinkedPhone: string };

/**
 * One page of the scope's records, newest first, and the cursor of the page after it (null at the
 * oldest). Reads one record more than the page to know whether another page exists.
 */
export async function readRecordPage(sequelize: Sequelize, scope: TRecordScope, page: { cursor?: string; limit: number }): Promise<{ rows: Communication[]; next: string | null }> {
  const bind: unknown[] = [];
  const where: string[] = [];
  if ('unlinkedPhone' in scope) {
    bind.push(scope.unlinkedPhone);
    where.push(`c.client_id IS NULL AND c.peer_phone = $${bind.length}`, `c.type = 'chat'`);
  } else {
    bind.push(scope.id);
    where.push(`c.${scope.column} = $${bind.length}`);
    if (scope.chatOnly) where.push(`c.type = 'chat'`);
  }
  if (page.cursor) {
    const after = decodeCursor(page.cursor);
    bind.push(after.at, after.id);
    where.push(`(c.created_at, c.id) < ($${bind.length - 1}::timestamptz, $${bind.length})`);
  }
  const rows = await sequelize.query<Communication>(
    `SELECT ${communicationColumnsSql('c')}, c.created_at::text AS "cursorAt" FROM communications c
     WHERE ${where.join(' AND ')}
     ORDER BY c.created_at DESC, c.id DESC
     LIMIT ${page.limit + 1}`,
    { bind, model: Communication, mapToModel: true },
  );
  const more = rows.length > page.limit;
  const kept = more ? rows.slice(0, page.limit) : rows;
  const last = kept[kept.length - 1];
  return { rows: kept, next: more && last ? encodeCursor({ at: String(last.get('cursorAt' as never)), id: last.id }) : null };
}
