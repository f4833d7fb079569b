import { queryRows, raw, sql, type Sql } from '../core/sql';
import { visibleTo, type TViewer } from '../core/visibility';
import type { TAuditAction } from './record-audit-event';

export type TAuditItem = {
  id: number;
  at: Date;
  user: { id: number; name: string } | null;
  action: TAuditAction;
  subject: string;
  detail: Record<string, unknown>;
  ip: string | null;
  /** The row's place in the hash chain (server/records/README.md "Records"): the hash of the row before it, and its own. */
  prevHash: string;
  hash: string;
  /**
   * What the subject is, in words: a client's name, a case's "reference · title", a person's name,
   * a conversation's client (or number), an email or address as typed. "Erased client #12" once the
   * record was erased; null when the subject names no record (`provider`, `templates`, `audit`) or
   * the record is gone.
   */
  subjectLabel: string | null;
  /** The SPA's page for the subject (a client's, a case's, a number's conversation), when it has one. */
  subjectLink: string | null;
  /** The subject's record was erased: its label says so instead of naming it. */
  subjectErased: boolean;
  /**
   * Names for ids in the detail, keyed by the detail's key: `from`/`to` (people, of an assignment or a
   * responsible person), `caseId` (a refile's case), `attachmentId` (the file read).
   */
  related: Record<string, string>;
};

/** What `subject` may filter on: one client, case, person or record (a client's filter takes in its cases). */
export const AUDIT_SUBJECT_PATTERN = /^(client|case|user|communication):\d{1,9}$/;
/** A hash prefix a person types (a regulator holding an export's chain head): hex, 6 characters or more. */
export const AUDIT_HASH_PATTERN = /^[0-9a-f]{6,64}$/;

// An event about a client, a case or a record is shown to the reader only when they may see that
// subject, and the case its detail names (a refile's) too (server/access/README.md "Ethical walls"): its detail can
// name the client (an export's file name), quote a number or list a case's records. Events about
// people, sign-ins and settings are about no matter.
const subjectId = sql`(split_part(e.subject, ':', 2))::int`;
const subjectVisibleTo = (viewer: TViewer): Sql => sql`CASE split_part(e.subject, ':', 1)
  WHEN 'client' THEN ${visibleTo(viewer, subjectId, null)}
  WHEN 'case' THEN coalesce((SELECT ${visibleTo(viewer, sql`k.client_id`, sql`k.id`)} FROM cases k WHERE k.id = ${subjectId}), true)
  WHEN 'communication' THEN coalesce((SELECT ${visibleTo(viewer, sql`c.client_id`, sql`c.case_id`)} FROM communications c WHERE c.id = ${subjectId}), true)
  ELSE true END
  AND (e.detail->>'caseId' IS NULL OR coalesce((SELECT ${visibleTo(viewer, sql`k.client_id`, sql`k.id`)} FROM cases k WHERE k.id = (e.detail->>'caseId')::int), true))`;

// A client's events and its cases' events: what a director asking "everything about Amelia Hart"
// means. Her cases are few, so this stays an index lookup per subject (audit_events_subject_idx).
const subjectMatches = (subject: string | null): Sql => sql`(${subject}::text IS NULL OR e.subject = ${subject}
  OR (split_part(${subject}::text, ':', 1) = 'client'
      AND e.subject IN (SELECT 'case:' || k.id FROM cases k WHERE k.client_id = split_part(${subject}::text, ':', 2)::int)))`;

// A prefix as a range, so the hash index answers it in any collation (hex sorts the same in all),
// then checked exactly.
const hashMatches = (hash: string | null): Sql =>
  sql`(${hash}::text IS NULL OR (e.hash BETWEEN rpad(${hash}::text, 64, '0') AND rpad(${hash}::text, 64, 'f') AND left(e.hash, length(${hash}::text)) = ${hash}))`;

/** An id in the detail, when it is a whole number (the detail is JSON: anything could be there). */
const detailId = (key: string) =>
  `CASE WHEN jsonb_typeof(p.detail->'${key}') = 'number' AND (p.detail->>'${key}') ~ '^[0-9]{1,9}$' THEN (p.detail->>'${key}')::int END`;
const caseLabel = (k: string) =>
  `CASE WHEN ${k}.erased_at IS NULL THEN ${k}.reference || ' · ' || ${k}.title ELSE 'Erased case #' || ${k}.id END`;
const clientLabel = (c: string) => `CASE WHEN ${c}.erased_at IS NULL THEN ${c}.name ELSE 'Erased client #' || ${c}.id END`;

// Names are read for the page's rows only (at most `limit + 1`), after the filters and walls chose them.
const LABELS = `
  CASE p.kind
    WHEN 'client' THEN ${clientLabel('sc')}
    WHEN 'case' THEN ${caseLabel('sk')}
    WHEN 'user' THEN su.name
    WHEN 'communication' THEN CASE WHEN mc.id IS NOT NULL THEN ${clientLabel('mc')} WHEN sm.peer_phone IS NOT NULL THEN '+' || sm.peer_phone END
    WHEN 'email' THEN p.rest
    WHEN 'ip' THEN p.rest
    WHEN 'phone' THEN '+' || p.rest
    WHEN 'number' THEN '+' || p.rest
  END AS "subjectLabel",
  CASE p.kind
    WHEN 'client' THEN CASE WHEN sc.erased_at IS NULL THEN '/clients/' || sc.id END
    WHEN 'case' THEN CASE WHEN sk.erased_at IS NULL THEN '/cases/' || sk.id END
    WHEN 'communication' THEN CASE
      WHEN mc.id IS NOT NULL THEN CASE WHEN mc.erased_at IS NULL THEN '/clients/' || mc.id END
      WHEN sm.peer_phone IS NOT NULL THEN '/inbox/phone/' || sm.peer_phone END
    WHEN 'phone' THEN '/inbox/phone/' || p.rest
  END AS "subjectLink",
  coalesce(CASE p.kind WHEN 'client' THEN sc.erased_at WHEN 'case' THEN sk.erased_at WHEN 'communication' THEN coalesce(sm.erased_at, mc.erased_at) END
    IS NOT NULL, false) AS "subjectErased",
  jsonb_strip_nulls(jsonb_build_object(
    'from', rf.name,
    'to', rt.name,
    'caseId', CASE WHEN rk.id IS NOT NULL THEN ${caseLabel('rk')} END,
    'attachmentId', CASE WHEN ra.erased_at IS NULL THEN ra.file_name ELSE 'an erased file' END
  )) AS related`;

const LABEL_JOINS = `
  LEFT JOIN users u ON u.id = p.user_id
  LEFT JOIN clients sc ON p.kind = 'client' AND sc.id = p.sid
  LEFT JOIN cases sk ON p.kind = 'case' AND sk.id = p.sid
  LEFT JOIN users su ON p.kind = 'user' AND su.id = p.sid
  LEFT JOIN communications sm ON p.kind = 'communication' AND sm.id = p.sid
  LEFT JOIN clients mc ON mc.id = sm.client_id
  LEFT JOIN users rf ON p.action IN ('inbox.assign', 'client.responsible') AND rf.id = ${detailId('from')}
  LEFT JOIN users rt ON p.action IN ('inbox.assign', 'client.responsible') AND rt.id = ${detailId('to')}
  LEFT JOIN cases rk ON rk.id = ${detailId('caseId')}
  -- Only a file on the record the event is about: an upload not yet sent is its uploader's alone.
  LEFT JOIN attachments ra ON p.action = 'media.view' AND ra.id = ${detailId('attachmentId')} AND ra.communication_id = sm.id`;

type TRow = Omit<TAuditItem, 'user'> & { userName: string | null; userId: number | null };

/**
 * The trail, newest first, one page at a time: `before` is the id of the last event of the previous
 * page (ids only grow, so this is a keyset, never an OFFSET). Filters by action, user, subject (a
 * client's includes its cases') and hash prefix; each event comes with its subject named.
 */
export async function listAuditEvents(
  viewer: TViewer,
  filter: {
    action?: TAuditAction;
    userId?: number;
    subject?: string;
    hash?: string;
    before?: number;
    limit?: number;
  },
): Promise<{ items: TAuditItem[]; nextBefore: number | null }> {
  const limit = filter.limit ?? 50;
  // Checked here too, not only by the router's schema: both are spliced into casts in the SQL.
  if (filter.subject !== undefined && !AUDIT_SUBJECT_PATTERN.test(filter.subject))
    throw new Error(`Not an audit subject: ${filter.subject}`);
  const hash = filter.hash?.toLowerCase();
  if (hash !== undefined && !AUDIT_HASH_PATTERN.test(hash)) throw new Error(`Not a hash prefix: ${hash}`);
  const [action, userId, before] = [filter.action ?? null, filter.userId ?? null, filter.before ?? null];
  const rows = await queryRows<TRow>(
    sql`WITH page AS (
       SELECT e.id, e.at, e.action, e.subject, e.detail, e.ip, e.prev_hash, e.hash, e.user_id,
              split_part(e.subject, ':', 1) AS kind,
              substr(e.subject, strpos(e.subject, ':') + 1) AS rest,
              CASE WHEN e.subject ~ '^(client|case|user|communication):[0-9]{1,9}$' THEN ${subjectId} END AS sid
       FROM audit_events e
       WHERE (${action}::text IS NULL OR e.action = ${action}) AND (${userId}::int IS NULL OR e.user_id = ${userId})
         AND (${before}::bigint IS NULL OR e.id < ${before})
         AND ${subjectMatches(filter.subject ?? null)} AND ${hashMatches(hash ?? null)}
         AND ${subjectVisibleTo(viewer)}
       ORDER BY e.id DESC
       LIMIT ${limit + 1})
     SELECT p.id, p.at, p.action, p.subject, p.detail, p.ip, p.prev_hash AS "prevHash", p.hash,
            p.user_id AS "userId", u.name AS "userName", ${raw(LABELS)}
     FROM page p ${raw(LABEL_JOINS)}
     ORDER BY p.id DESC`,
  );
  const page = rows.slice(0, limit);
  return {
    items: page.map(({ userName, userId, ...event }) => ({
      ...event,
      id: Number(event.id),
      at: new Date(event.at),
      user: userId === null ? null : { id: userId, name: userName ?? 'Former user' },
    })),
    nextBefore: rows.length > limit ? Number(page[page.length - 1]!.id) : null,
  };
}
