import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import { visibleToSql, type TViewer } from '../core/visibility';
import type { TAuditAction } from './record-audit-event';

export type TAuditItem = {
  id: number;
  at: Date;
  user: { id: number; name: string } | null;
  action: TAuditAction;
  subject: string;
  detail: Record<string, unknown>;
  ip: string | null;
};

// An event about a client, a case or a record is shown to the reader only when they may see that
// subject, and the case its detail names (a refile's) too (README "Ethical walls"): its detail can
// name the client (an export's file name), quote a number or list a case's records. Events about
// people, sign-ins and settings are about no matter.
const subjectId = `(split_part(e.subject, ':', 2))::int`;
const SUBJECT_VISIBLE = `CASE split_part(e.subject, ':', 1)
  WHEN 'client' THEN ${visibleToSql('$5', subjectId, 'NULL')}
  WHEN 'case' THEN coalesce((SELECT ${visibleToSql('$5', 'k.client_id', 'k.id')} FROM cases k WHERE k.id = ${subjectId}), true)
  WHEN 'communication' THEN coalesce((SELECT ${visibleToSql('$5', 'c.client_id', 'c.case_id')} FROM communications c WHERE c.id = ${subjectId}), true)
  ELSE true END
  AND (e.detail->>'caseId' IS NULL OR coalesce((SELECT ${visibleToSql('$5', 'k.client_id', 'k.id')} FROM cases k WHERE k.id = (e.detail->>'caseId')::int), true))`;

/**
 * The trail, newest first, one page at a time: `before` is the id of the last event of the previous
 * page (ids only grow, so this is a keyset, never an OFFSET). Filters by action and by user.
 */
export async function listAuditEvents(
  viewer: TViewer,
  filter: {
    action?: TAuditAction;
    userId?: number;
    before?: number;
    limit?: number;
  },
): Promise<{ items: TAuditItem[]; nextBefore: number | null }> {
  const limit = filter.limit ?? 50;
  const rows = await db().query<TAuditItem & { userName: string | null; userId: number | null }>(
    `SELECT e.id, e.at, e.action, e.subject, e.detail, e.ip, e.user_id AS "userId", u.name AS "userName"
     FROM audit_events e LEFT JOIN users u ON u.id = e.user_id
     WHERE ($1::text IS NULL OR e.action = $1) AND ($2::int IS NULL OR e.user_id = $2) AND ($3::bigint IS NULL OR e.id < $3)
       AND ${SUBJECT_VISIBLE}
     ORDER BY e.id DESC
     LIMIT $4`,
    { bind: [filter.action ?? null, filter.userId ?? null, filter.before ?? null, limit + 1, viewer.id], type: QueryTypes.SELECT },
  );
  const page = rows.slice(0, limit);
  return {
    items: page.map(({ userName, userId, ...event }) => ({
      ...event,
      at: new Date(event.at),
      user: userId === null ? null : { id: userId, name: userName ?? 'Former user' },
    })),
    nextBefore: rows.length > limit ? page[page.length - 1]!.id : null,
  };
}
