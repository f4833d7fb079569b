import { clientWaiting } from '../core/client-waiting-sql';
import { raw, sql, type Sql } from '../core/sql';
import { visibleTo, type TViewer } from '../core/visibility';
import { keptUnreadCandidates } from './unread-kept-sql';

/** What a statement of conversations is asked, each bound where it is used. */
export type TThreadsQuery = {
  /** Rows to read (a page, and one more to know whether another follows). */
  limit: number;
  /** The last row shown (its activity time as PostgreSQL printed it, and its last record id); null: the first page. */
  after: { at: string; id: number } | null;
  viewer: Pick<TViewer, 'id'>;
  /** The state listed; null: any. */
  state: string | null;
  /** The reply target, in minutes (server/ownership/README.md "Ownership"). */
  replyTargetMinutes: number;
  /** A page of the inbox, which lists no erased client's conversation (nothing in it is for anyone to act on). */
  listing?: boolean;
  /** The unread filter starts from the reader's kept counts (few unread for them; server/inbox/README.md "The badge, kept"). */
  unreadFromKept?: boolean;
  /** Only conversations with a message through this firm number (server/numbers/README.md "Several numbers"). */
  firmNumberId?: number;
};

// Reads the per-conversation summary rows (chat_threads, kept by a trigger) newest first, from a
// keyset position (`after`: the last row shown, or none for the first page), and joins each row's
// last record for its current text and status, and its owner and state (conversation_states: no
// row is open and unassigned). `state`: the state listed (null: any); `replyTargetMinutes`
// (server/ownership/README.md "Ownership"). `viewer` is the reader: a conversation with a client they
// are walled from is not listed, a candidate they are walled from is not offered, and where some of
// a client's records are on a case they are walled from, the conversation's summary is the one read
// from the records they may see (`seen`, server/access/README.md "Ethical walls"). The state is tested on o.state
// itself, not coalesce(o.state, 'open'): PostgreSQL has no statistics for the coalesce, guessed it
// kept one row in 200, and sorted every matching conversation instead of walking the newest first
// (the unread filter: 500 ms at the benchmark's scale, 2.5 ms written this way).
const threadsSql = (where: Sql, q: TThreadsQuery, recency: 't' | 'o' = 't'): Sql => sql`
WITH ${seenSummariesCte(q.viewer)}
SELECT l.id, t.last_at::text AS "cursorAt", t.client_id AS "clientId", coalesce(t.peer_phone, l.peer_phone) AS "peerPhone",
  d.body, d.direction, d.status, d.metadata->>'outcome' AS outcome, d.created_at AS "createdAt", cl.name AS "clientName",
  coalesce(d.metadata->>'kind', 'text') AS kind,
  (SELECT a.file_name FROM attachments a WHERE a.communication_id = d.id ORDER BY a.id LIMIT 1) AS "fileName",
  ${SEEN_UNREAD} AS unread,
  CASE WHEN s.client_id IS NULL THEN t.last_inbound_at ELSE s.last_inbound_at END AS "lastInboundAt",
  CASE WHEN s.client_id IS NULL THEN t.contact_name ELSE s.contact_name END AS "contactName",
  o.assignee_id AS "assigneeId", au.name AS "assigneeName", coalesce(o.state, 'open') AS state, o.snoozed_until AS "snoozedUntil",
  ${overdue(q)} AS overdue,
  CASE WHEN t.client_id IS NULL THEN
    (SELECT coalesce(json_agg(json_build_object(
        'id', m.id, 'name', m.name,
        'numbers', (SELECT json_agg(n.digits ORDER BY n.digits) FROM client_numbers n WHERE n.client_id = m.id AND n.last9 = right(t.peer_phone, 9)),
        'openCases', (SELECT coalesce(json_agg(json_build_object('reference', k.reference, 'title', k.title) ORDER BY k.reference), '[]'::json)
                      FROM cases k WHERE k.client_id = m.id AND k.status = 'open' AND k.id NOT IN (SELECT wc.id FROM walled_case wc))
      ) ORDER BY m.name), '[]'::json)
     FROM clients m WHERE m.id IN (SELECT n.client_id FROM client_numbers n WHERE n.last9 = right(t.peer_phone, 9))
       AND ${visibleTo(q.viewer, sql`m.id`, null)})
  END AS candidates
FROM chat_threads t
${readMarkJoin(q.viewer)}
LEFT JOIN seen s ON s.client_id = t.client_id
JOIN communications l ON l.id = CASE WHEN s.client_id IS NULL THEN t.last_id ELSE s.last_id END
JOIN communications d ON d.id = ${SHOWN_ID}
LEFT JOIN clients cl ON cl.id = t.client_id
LEFT JOIN conversation_states o ON o.thread_key = t.thread_key
LEFT JOIN users au ON au.id = o.assignee_id
WHERE ${where} ${q.firmNumberId ? throughNumber(q.firmNumberId) : sql``} AND ${visibleTo(q.viewer, sql`t.client_id`, null)} AND ${q.listing ? sql`cl.erased_at IS NULL` : sql`true`} AND (${q.state}::text IS NULL OR o.state = ${q.state}::text OR (${q.state}::text = 'open' AND o.state IS NULL))
  AND (${q.after?.at ?? null}::timestamptz IS NULL OR (${raw(recency)}.last_at, ${raw(recency)}.last_id) < (${q.after?.at ?? null}::timestamptz, ${q.after?.id ?? null}::int))
ORDER BY ${raw(recency)}.last_at DESC, ${raw(recency)}.last_id DESC
LIMIT ${q.limit}`;

// What the row shows (`d`): the last record, but for an automatic out-of-hours reply, which answers
// no one (server/messaging/README.md "Business hours"): then the newest record before it that is not
// one, as the reader may see it — the client's last words. `l` stays the newest: the order and cursor are its.
const SHOWN_ID = sql`CASE WHEN l.metadata ? 'auto_reply' THEN coalesce((SELECT x.id FROM communications x
    WHERE (x.client_id = t.client_id OR (t.client_id IS NULL AND x.client_id IS NULL AND x.peer_phone = t.peer_phone))
      AND x.type = 'chat' AND NOT x.metadata ? 'auto_reply' AND (x.created_at, x.id) < (l.created_at, l.id)
      AND (x.case_id IS NULL OR x.case_id NOT IN (SELECT wc.id FROM walled_case wc))
    ORDER BY x.created_at DESC, x.id DESC LIMIT 1), l.id) ELSE l.id END`;

/** The conversation has a message through the firm's number `id` (as the reader may see it: the walls apply to the page as a whole). */
const throughNumber = (id: number): Sql => sql`AND EXISTS (SELECT 1 FROM communications x
    WHERE (x.client_id = t.client_id OR (t.client_id IS NULL AND x.client_id IS NULL AND x.peer_phone = t.peer_phone))
      AND x.type = 'chat' AND x.firm_number_id = ${id}
      AND (x.case_id IS NULL OR x.case_id NOT IN (SELECT wc.id FROM walled_case wc)))`;

/** The client wrote last, longer ago than the reply target. */
const overdue = (q: TThreadsQuery): Sql =>
  sql`(${clientWaiting(sql`l`)} AND l.created_at < now() - make_interval(mins => ${q.replyTargetMinutes}::int))`;

/** The reader's read mark of each conversation (`m`; none: nothing of it read, server/inbox/README.md "Unread"). */
export const readMarkJoin = (viewer: Pick<TViewer, 'id'>): Sql =>
  sql`LEFT JOIN read_marks m ON m.user_id = ${viewer.id} AND m.thread_key = t.thread_key`;

/** A conversation's inbound records the reader has not read, by its kept summary (`t`) and their mark (`m`). */
export const KEPT_UNREAD = sql`greatest(t.inbound - coalesce(m.read_count, 0), 0)`;

/** A conversation's unread count for the reader as they may see it (`t`, `m`: the kept summary and their mark; `s`: the one read again, if any). */
export const SEEN_UNREAD = sql`CASE WHEN s.client_id IS NULL THEN ${KEPT_UNREAD} ELSE s.unread END`;

/** The reader has unread inbound records in the conversation (the cheap test, before SEEN_UNREAD's walls). */
export const HAS_UNREAD = sql`t.inbound > coalesce(m.read_count, 0)`;

// `seen`: for each client with a case walled from the reader — few, whatever the inbox's size, and
// read once per statement — the conversation's last record, unread count, last inbound time and
// profile name, read newest first from the records the reader may see. (The last inbound time and
// profile name are the newest stored inbound record's; the kept summary's newest provider time
// matches it but for a late delivery, and its name is the newest record's that had one.) Every other conversation keeps its kept summary. `walled_case`: the reader's walled
// cases among those that could be walled at all (restricted, or screening someone).
export const seenSummariesCte = (viewer: Pick<TViewer, 'id'>): Sql => {
  // The client is one the reader may see (or its conversation is not listed): of its records, the
  // rule leaves out exactly those on the walled cases, so that is the test here (a smaller statement
  // to plan than the rule written out three more times).
  const visibleChat = sql`x.client_id = w.client_id AND x.type = 'chat' AND (x.case_id IS NULL OR x.case_id NOT IN (SELECT wc.id FROM walled_case wc))`;
  return sql`walled_case AS MATERIALIZED (
  SELECT k.id, k.client_id FROM cases k
  WHERE k.id IN (SELECT r.id FROM cases r WHERE r.restricted UNION ALL SELECT s.subject_id FROM access_screens s WHERE s.subject_type = 'case' AND s.user_id = ${viewer.id})
    AND NOT ${visibleTo(viewer, sql`k.client_id`, sql`k.id`)}),
seen AS MATERIALIZED (
  SELECT w.client_id,
    (SELECT x.id FROM communications x WHERE ${visibleChat} ORDER BY x.created_at DESC, x.id DESC LIMIT 1) AS last_id,
    -- The reader's kept count less the records on the walled cases newer than their mark (read by
    -- case: far fewer than the client's).
    (SELECT greatest(k.inbound - coalesce(km.read_count, 0)
       - (SELECT count(*)::int FROM walled_case c JOIN communications x ON x.case_id = c.id
          WHERE c.client_id = w.client_id AND x.client_id = w.client_id AND x.type = 'chat' AND x.direction = 'inbound' AND x.status IS DISTINCT FROM 'imported'
            AND x.id > coalesce(km.read_through_id, 0)), 0)
     FROM chat_threads k LEFT JOIN read_marks km ON km.user_id = ${viewer.id} AND km.thread_key = k.thread_key
     WHERE k.thread_key = 'client-' || w.client_id) AS unread,
    (SELECT coalesce(x.provider_timestamp, x.created_at) FROM communications x WHERE ${visibleChat} AND x.direction = 'inbound' AND x.status IS DISTINCT FROM 'imported'
     ORDER BY x.created_at DESC, x.id DESC LIMIT 1) AS last_inbound_at,
    (SELECT x.metadata->>'contact_name' FROM communications x WHERE ${visibleChat} AND x.direction = 'inbound' AND x.status IS DISTINCT FROM 'imported'
     ORDER BY x.created_at DESC, x.id DESC LIMIT 1) AS contact_name
  FROM (SELECT DISTINCT client_id FROM walled_case) w)`;
};

export const THREAD_FILTERS = ['all', 'unread', 'unlinked', 'awaiting_reply', 'mine', 'unassigned', 'overdue'] as const;
/**
 * all; with unread messages; numbers no client (or several) has; the client wrote last (awaiting
 * our reply); assigned to the reader; assigned to nobody; awaiting our reply past the reply target.
 */
export type TThreadFilter = (typeof THREAD_FILTERS)[number];
// Literal predicates (not a parameter) so the planner can use the partial indexes of 0010.
const FILTERS: Record<TThreadFilter, (q: TThreadsQuery) => Sql> = {
  all: (q) => threadsSql(sql`true`, q),
  // A reader with few unread: only the conversations their kept counts name are looked at, not every
  // conversation newest first until a page is found (the whole inbox, for a reader with none). An array,
  // read once, so the planner looks them up by key rather than scanning the inbox and testing each.
  unread: (q) =>
    threadsSql(
      sql`${HAS_UNREAD} AND ${SEEN_UNREAD} > 0 AND ${q.unreadFromKept ? sql`t.thread_key = ANY (ARRAY(${keptUnreadCandidates(q.viewer)}))` : sql`true`}`,
      q,
    ),
  unlinked: (q) => threadsSql(sql`t.client_id IS NULL`, q),
  awaiting_reply: (q) => threadsSql(clientWaiting(sql`l`), q),
  // The reader's own, newest first, read from conversation_states' index of each person's
  // conversations by activity (the same times as chat_threads', kept in step by migration 0019's
  // triggers): one row read per row shown, however many conversations the firm has.
  mine: (q) => threadsSql(sql`o.assignee_id = ${q.viewer.id}`, q, 'o'),
  unassigned: (q) => threadsSql(sql`o.assignee_id IS NULL`, q),
  // Nothing active since the reply target's cutoff can be overdue, so the walk starts there — for
  // a reader with no walled case, whose last record is the summary's (with one, a conversation may
  // show them an older last record than its summary's time: no bound, every conversation asked).
  overdue: (q) =>
    threadsSql(
      sql`${overdue(q)} AND t.last_at < (SELECT CASE WHEN EXISTS (SELECT 1 FROM walled_case) THEN 'infinity'::timestamptz ELSE now() - make_interval(mins => ${q.replyTargetMinutes}::int) END)`,
      q,
    ),
};

/** The statement that reads a page of conversations under `filter`. */
export const threadsPageSql = (filter: TThreadFilter, q: TThreadsQuery): Sql => FILTERS[filter]({ ...q, listing: true });

/** One conversation's row by its key, in any state the query lists. */
export const threadByKeySql = (key: string, q: TThreadsQuery): Sql => threadsSql(sql`t.thread_key = ${key}`, q);
