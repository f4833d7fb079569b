import { QueryTypes } from 'sequelize';
import type { TCommunication, TMessageKind, TReceiptStatus } from '../../shared/communication';
import { parsePhoneDigits } from '../../shared/phone';
import { threadKeyOf, threadKeyOfRef } from '../../shared/thread-key';
import { Communication, communicationDtoOf, withDetails, type TCommunicationRecord } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { assertSubjectVisible } from '../access';
import { actorOf, recordAuditEvent } from '../audit';
import { assertNumberFreeOrConfirmed, insertClientNumber, removeNumberRow } from '../crm';
import { visibleToSql, type TReader, type TViewer } from '../core/visibility';
import { markThreadNotificationsRead } from '../notifications';
import { formatNumber } from '../core/phone-input';
import { decodeCursor, endPage, isTimestampText, readRecordPage } from '../core/record-pages';
import { db } from '../core/db/db';
import { clientWaitingSql } from '../core/client-waiting-sql';

export type TThreadRef = { clientId: number } | { phone: string };
export type TReceiptStep = { status: TReceiptStatus; at: Date | null };
/** A chat record as the thread shows it: with when each receipt said what. */
export type TThreadItem = TCommunication & { receipts: TReceiptStep[]; readAt: Date | null };

export type TLinkCandidate = { id: number; name: string; numbers: string[]; openCases: { reference: string; title: string }[] };

export type TThreadSummary = {
  key: string;
  clientId: number | null;
  clientName: string | null;
  phone: string | null;
  contactName: string | null;
  /** linked: a client's thread; unknown: no client has this number; ambiguous: several do. */
  match: 'linked' | 'unknown' | 'ambiguous';
  /** Clients sharing the number's last 9 digits: their matching numbers and open cases, to choose from. */
  candidates: TLinkCandidate[];
  /** `kind` and `fileName`: what to call a last message that is a file ("Photo", "contract.pdf"). */
  last: {
    id: number;
    body: string;
    direction: 'inbound' | 'outbound' | null;
    status: TCommunication['status'];
    /** 'unknown': a send whose provider answer was lost (it may have gone); shown as such, not as a clock. */
    outcome: 'unknown' | null;
    createdAt: Date;
    kind: TMessageKind;
    fileName: string | null;
  };
  unread: number;
  lastInboundAt: Date | null;
  /** Who handles it (README "Ownership"); null: nobody yet. */
  assignee: { id: number; name: string } | null;
  state: TConversationState;
  /** When a snoozed conversation opens again by itself. */
  snoozedUntil: Date | null;
  /** The client wrote last, longer ago than the reply target. */
  overdue: boolean;
};

export const CONVERSATION_STATES = ['open', 'done', 'snoozed'] as const;
export type TConversationState = (typeof CONVERSATION_STATES)[number];
/** The reply target when none is given (REPLY_TARGET_MINUTES's default). */
const DEFAULT_REPLY_TARGET_MINUTES = 240;

export type TThreadsPage = {
  limit?: number;
  filter?: TThreadFilter;
  cursor?: string;
  /** The state listed (default open). */
  state?: TConversationState;
  replyTargetMinutes?: number;
};

const THREAD_LIMIT = 500;

/** A typed number's digits, or INVALID_INPUT. */
export function phoneDigitsOf(phone: string): string {
  const digits = parsePhoneDigits(phone);
  if (!digits) throw new AppError('INVALID_INPUT', 'That is not a valid number.');
  return digits;
}

function whereForThread(ref: TThreadRef): { clientId: number } | { clientId: null; peerPhone: string } {
  return 'clientId' in ref ? { clientId: ref.clientId } : { clientId: null, peerPhone: phoneDigitsOf(ref.phone) };
}

const RECEIPT_ORDER = ['sent', 'delivered', 'read', 'failed'] as const;

function toThreadItem(row: TCommunicationRecord): TThreadItem {
  const history = row.receipts ?? {};
  const receipts = RECEIPT_ORDER.filter((status) => history[status]).map((status) => ({
    status,
    at: history[status]?.at ? new Date(history[status].at) : null,
  }));
  return { ...communicationDtoOf(row), readAt: row.readAt ?? null, receipts };
}

/** The records with these ids, as thread items (what live views receive): messages and internal notes. */
export async function loadThreadItems(ids: number[]): Promise<TThreadItem[]> {
  const rows = await Communication.findAll({ where: { id: ids, type: ['chat', 'chat_note'] }, order: [['id', 'ASC']] });
  return (await withDetails(rows)).map(toThreadItem);
}

/**
 * One page of a thread — the client's chat records, or an unlinked number's: the newest page, or
 * the one older than `cursor`; oldest first within it. `nextCursor` asks for the page older than this one.
 * A client the reader is walled from is NOT_FOUND; a record on a case they are walled from is not on the page.
 */
export async function getThread(
  reader: TReader,
  ref: TThreadRef,
  page: { cursor?: string; limit?: number } = {},
): Promise<{ items: TThreadItem[]; nextCursor: string | null }> {
  const scope =
    'clientId' in ref ? { column: 'client_id' as const, id: ref.clientId, chatOnly: true } : { unlinkedPhone: phoneDigitsOf(ref.phone) };
  const { rows, next } = await readRecordPage(scope, { cursor: page.cursor, limit: page.limit ?? THREAD_LIMIT, viewer: reader });
  // A record on the page implies a client the reader may see (a walled client's records are all
  // left out): only an empty page needs to ask whether the client exists and is theirs to see.
  if (rows.length === 0 && 'clientId' in ref) await assertSubjectVisible(reader, { clientId: ref.clientId });
  return { items: (await withDetails(rows.reverse())).map(toThreadItem), nextCursor: next };
}

/**
 * Marks the thread's inbound records the reader may see read, and the reader's notifications
 * about it (README "Ownership": having read the conversation, they need no more telling of it);
 * returns how many records were unread.
 */
export async function markThreadRead(reader: TReader, ref: TThreadRef, now: Date): Promise<number> {
  if ('clientId' in ref) await assertSubjectVisible(reader, { clientId: ref.clientId });
  const where = whereForThread(ref);
  await markThreadNotificationsRead(reader, threadKeyOf({ peerPhone: null, ...where }), now);
  const [rows] = await db().query(
    `UPDATE communications c SET read_at = $1, updated_at = now()
     WHERE c.type = 'chat' AND c.direction = 'inbound' AND c.read_at IS NULL AND ${visibleToSql('$2', 'c.client_id', 'c.case_id')}
       AND ${'peerPhone' in where ? 'c.client_id IS NULL AND c.peer_phone = $3' : 'c.client_id = $3'}
     RETURNING c.id`,
    { bind: [now, reader.id, 'peerPhone' in where ? where.peerPhone : where.clientId] },
  );
  return rows.length;
}

/**
 * Files an unlinked number's records under a client and adds the number to the client, so its
 * later messages file themselves: an explicit person's decision, the only way an ambiguous number
 * is ever linked. A number another client has needs `confirm` (CONFLICT naming that client). The
 * records' UPDATE comes first and locks them: of two people linking the same number at once, the
 * second finds nothing left to link (CONFLICT) and adds nothing. Records unlinked earlier get their
 * case back when they return to the same client, if the person linking may see that case (else
 * they stay on none: nobody files into a case they are walled from). Recorded in the audit trail.
 */
export async function linkPhoneToClient(reader: TReader, input: { phone: string; clientId: number; confirm?: boolean }): Promise<number[]> {
  await assertSubjectVisible(reader, { clientId: input.clientId });
  const actor = actorOf(reader);
  const digits = phoneDigitsOf(input.phone);
  await assertNumberFreeOrConfirmed(reader, digits, input.clientId, input.confirm);
  return db().transaction(async (transaction) => {
    const rows = await db().query<{ id: number }>(
      `UPDATE communications c
       SET client_id = $1,
           case_id = coalesce(c.case_id, (SELECT k.id FROM cases k WHERE k.id = (c.metadata->>'unlinked_case_id')::int AND k.client_id = $1
                                          AND ${visibleToSql('$3', 'k.client_id', 'k.id')})),
           metadata = c.metadata - 'unlinked_case_id',
           updated_at = now()
       WHERE c.type IN ('chat', 'chat_note') AND c.client_id IS NULL AND c.peer_phone = $2 RETURNING c.id`,
      { bind: [input.clientId, digits, reader.id], type: QueryTypes.SELECT, transaction },
    );
    if (rows.length === 0)
      throw new AppError('CONFLICT', `${formatNumber(digits)} has no unlinked messages: it may just have been linked by someone else.`);
    await insertClientNumber(input.clientId, digits, actor, 'link', transaction);
    // The number's conversation is now the client's: who had it and its state go along, unless the
    // client's own conversation already has them, and its notifications open the client's
    // (README "Ownership").
    await db().query(
      `WITH moved AS (DELETE FROM conversation_states WHERE thread_key = $2 RETURNING *)
       INSERT INTO conversation_states (thread_key, assignee_id, state, snoozed_until, overdue_notified_at, updated_at)
       SELECT $1, assignee_id, state, snoozed_until, overdue_notified_at, now() FROM moved
       ON CONFLICT (thread_key) DO NOTHING`,
      { bind: [threadKeyOfRef({ clientId: input.clientId }), threadKeyOfRef({ phone: digits })], transaction },
    );
    await db().query('UPDATE notifications SET thread_key = $1 WHERE thread_key = $2', {
      bind: [threadKeyOfRef({ clientId: input.clientId }), threadKeyOfRef({ phone: digits })],
      transaction,
    });
    const ids = rows.map((r) => r.id);
    await recordAuditEvent(
      { actor, action: 'inbox.link', subject: `client:${input.clientId}`, detail: { digits, moved: ids.length, ids } },
      transaction,
    );
    return ids;
  });
}

/**
 * Undoes a link: the number (only one linked from the inbox) leaves the client and that number's
 * chat records, the firm's replies to it included, go back to unlinked and off the client's cases
 * (a case file must not show a stranger's conversation); each remembers its case, restored if it is
 * linked back to the same client. Returns the records moved.
 */
export async function unlinkPhoneFromClient(reader: TReader, input: { phone: string; clientId: number }): Promise<number[]> {
  await assertSubjectVisible(reader, { clientId: input.clientId });
  const actor = actorOf(reader);
  const digits = phoneDigitsOf(input.phone);
  return db().transaction(async (transaction) => {
    await removeNumberRow(input.clientId, digits, transaction, { onlyLinked: true });
    // Unlinked records are read by all staff: one on a case the reader is walled from must not get
    // there by their hand (README "Ethical walls").
    const [walled] = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM communications c
       WHERE c.type IN ('chat', 'chat_note') AND c.client_id = $1 AND c.peer_phone = $2 AND NOT ${visibleToSql('$3', 'c.client_id', 'c.case_id')}`,
      { bind: [input.clientId, digits, reader.id], type: QueryTypes.SELECT, transaction },
    );
    if (walled && walled.n > 0)
      throw new AppError(
        'CONFLICT',
        `Some of ${formatNumber(digits)}'s messages are filed where you cannot see them: a director who can see them must unlink this number.`,
      );
    const rows = await db().query<{ id: number }>(
      `UPDATE communications
       SET client_id = NULL, case_id = NULL, updated_at = now(),
           metadata = CASE WHEN case_id IS NULL THEN metadata ELSE metadata || jsonb_build_object('unlinked_case_id', case_id) END
       WHERE type IN ('chat', 'chat_note') AND client_id = $1 AND peer_phone = $2 RETURNING id`,
      { bind: [input.clientId, digits], type: QueryTypes.SELECT, transaction },
    );
    const ids = rows.map((r) => r.id);
    await recordAuditEvent(
      { actor, action: 'inbox.unlink', subject: `client:${input.clientId}`, detail: { digits, moved: ids.length, ids } },
      transaction,
    );
    return ids;
  });
}

// Reads the per-conversation summary rows (chat_threads, kept by a trigger) newest first, from a
// keyset position ($2, $3: the last row shown, or NULL for the first page), and joins each row's
// last record for its current text and status, and its owner and state (conversation_states: no
// row is open and unassigned). $5: the state listed (NULL: any); $6: the reply target in minutes
// (README "Ownership"). $4 is the reader: a conversation with a client they
// are walled from is not listed, a candidate they are walled from is not offered, and where some of
// a client's records are on a case they are walled from, the conversation's summary is the one read
// from the records they may see (`seen`, README "Ethical walls"). The state is tested on o.state
// itself, not coalesce(o.state, 'open'): PostgreSQL has no statistics for the coalesce, guessed it
// kept one row in 200, and sorted every matching conversation instead of walking the newest first
// (the unread filter: 500 ms at the benchmark's scale, 2.5 ms written this way).
const threadsSql = (where: string, recency: 't' | 'o' = 't') => `
WITH ${seenSummariesCte('$4')}
SELECT l.id, t.last_at::text AS "cursorAt", t.client_id AS "clientId", coalesce(t.peer_phone, l.peer_phone) AS "peerPhone",
  l.body, l.direction, l.status, l.metadata->>'outcome' AS outcome, l.created_at AS "createdAt", cl.name AS "clientName",
  coalesce(l.metadata->>'kind', 'text') AS kind,
  (SELECT a.file_name FROM attachments a WHERE a.communication_id = l.id ORDER BY a.id LIMIT 1) AS "fileName",
  ${SEEN_UNREAD} AS unread,
  CASE WHEN s.client_id IS NULL THEN t.last_inbound_at ELSE s.last_inbound_at END AS "lastInboundAt",
  CASE WHEN s.client_id IS NULL THEN t.contact_name ELSE s.contact_name END AS "contactName",
  o.assignee_id AS "assigneeId", au.name AS "assigneeName", coalesce(o.state, 'open') AS state, o.snoozed_until AS "snoozedUntil",
  ${OVERDUE} AS overdue,
  CASE WHEN t.client_id IS NULL THEN
    (SELECT coalesce(json_agg(json_build_object(
        'id', m.id, 'name', m.name,
        'numbers', (SELECT json_agg(n.digits ORDER BY n.digits) FROM client_numbers n WHERE n.client_id = m.id AND n.last9 = right(t.peer_phone, 9)),
        'openCases', (SELECT coalesce(json_agg(json_build_object('reference', k.reference, 'title', k.title) ORDER BY k.reference), '[]'::json)
                      FROM cases k WHERE k.client_id = m.id AND k.status = 'open' AND k.id NOT IN (SELECT wc.id FROM walled_case wc))
      ) ORDER BY m.name), '[]'::json)
     FROM clients m WHERE m.id IN (SELECT n.client_id FROM client_numbers n WHERE n.last9 = right(t.peer_phone, 9))
       AND ${visibleToSql('$4', 'm.id', 'NULL')})
  END AS candidates
FROM chat_threads t
LEFT JOIN seen s ON s.client_id = t.client_id
JOIN communications l ON l.id = CASE WHEN s.client_id IS NULL THEN t.last_id ELSE s.last_id END
LEFT JOIN clients cl ON cl.id = t.client_id
LEFT JOIN conversation_states o ON o.thread_key = t.thread_key
LEFT JOIN users au ON au.id = o.assignee_id
WHERE ${where} AND ${visibleToSql('$4', 't.client_id', 'NULL')} AND ($5::text IS NULL OR o.state = $5::text OR ($5::text = 'open' AND o.state IS NULL))
  AND ($2::timestamptz IS NULL OR (${recency}.last_at, ${recency}.last_id) < ($2::timestamptz, $3::int))
ORDER BY ${recency}.last_at DESC, ${recency}.last_id DESC
LIMIT $1`;

/** The client wrote last, longer ago than the reply target ($6 minutes). */
const OVERDUE = `(${clientWaitingSql('l')} AND l.created_at < now() - make_interval(mins => $6::int))`;

/** A conversation's unread count as the reader may see it (`t`: its kept summary, `s`: the one read again, if any). */
const SEEN_UNREAD = 'CASE WHEN s.client_id IS NULL THEN t.unread ELSE s.unread END';

// `seen`: for each client with a case walled from the reader — few, whatever the inbox's size, and
// read once per statement — the conversation's last record, unread count, last inbound time and
// profile name, read newest first from the records the reader may see. (The last inbound time and
// profile name are the newest stored inbound record's; the kept summary's newest provider time
// matches it but for a late delivery, and its name is the newest record's that had one.) Every other conversation keeps its kept summary. `walled_case`: the reader's walled
// cases among those that could be walled at all (restricted, or screening someone).
const seenSummariesCte = (viewer: string): string => {
  // The client is one the reader may see (or its conversation is not listed): of its records, the
  // rule leaves out exactly those on the walled cases, so that is the test here (a smaller statement
  // to plan than the rule written out three more times).
  const visibleChat = `x.client_id = w.client_id AND x.type = 'chat' AND (x.case_id IS NULL OR x.case_id NOT IN (SELECT wc.id FROM walled_case wc))`;
  return `walled_case AS MATERIALIZED (
  SELECT k.id, k.client_id FROM cases k
  WHERE k.id IN (SELECT r.id FROM cases r WHERE r.restricted UNION ALL SELECT s.subject_id FROM access_screens s WHERE s.subject_type = 'case' AND s.user_id = ${viewer})
    AND NOT ${visibleToSql(viewer, 'k.client_id', 'k.id')}),
seen AS MATERIALIZED (
  SELECT w.client_id,
    (SELECT x.id FROM communications x WHERE ${visibleChat} ORDER BY x.created_at DESC, x.id DESC LIMIT 1) AS last_id,
    -- The kept count less the unread on the walled cases (read by case: far fewer than the client's).
    (SELECT k.unread FROM chat_threads k WHERE k.thread_key = 'client-' || w.client_id)
      - (SELECT count(*)::int FROM walled_case c JOIN communications x ON x.case_id = c.id
         WHERE c.client_id = w.client_id AND x.client_id = w.client_id AND x.type = 'chat' AND x.direction = 'inbound' AND x.read_at IS NULL) AS unread,
    (SELECT coalesce(x.provider_timestamp, x.created_at) FROM communications x WHERE ${visibleChat} AND x.direction = 'inbound'
     ORDER BY x.created_at DESC, x.id DESC LIMIT 1) AS last_inbound_at,
    (SELECT x.metadata->>'contact_name' FROM communications x WHERE ${visibleChat} AND x.direction = 'inbound'
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
const THREADS_SQL: Record<TThreadFilter, string> = {
  all: threadsSql('true'),
  unread: threadsSql(`t.unread > 0 AND ${SEEN_UNREAD} > 0`),
  unlinked: threadsSql('t.client_id IS NULL'),
  awaiting_reply: threadsSql(clientWaitingSql('l')),
  // The reader's own, newest first, read from conversation_states' index of each person's
  // conversations by activity (the same times as chat_threads', kept in step by migration 0019's
  // triggers): one row read per row shown, however many conversations the firm has.
  mine: threadsSql('o.assignee_id = $4', 'o'),
  unassigned: threadsSql('o.assignee_id IS NULL'),
  // Nothing active since the reply target's cutoff can be overdue, so the walk starts there — for
  // a reader with no walled case, whose last record is the summary's (with one, a conversation may
  // show them an older last record than its summary's time: no bound, every conversation asked).
  overdue: threadsSql(
    `${OVERDUE} AND t.last_at < (SELECT CASE WHEN EXISTS (SELECT 1 FROM walled_case) THEN 'infinity'::timestamptz ELSE now() - make_interval(mins => $6::int) END)`,
  ),
};
// One conversation's row by its key ($7), in any state, with the same (unused) page parameters and the reader ($4).
const THREAD_BY_KEY_SQL = threadsSql('t.thread_key = $7');

type TThreadRow = {
  id: number;
  cursorAt: string;
  clientId: number | null;
  peerPhone: string | null;
  body: string;
  direction: 'inbound' | 'outbound' | null;
  status: TCommunication['status'];
  outcome: 'unknown' | null;
  createdAt: Date;
  kind: TMessageKind;
  fileName: string | null;
  clientName: string | null;
  unread: number;
  lastInboundAt: Date | null;
  contactName: string | null;
  candidates: TLinkCandidate[] | null;
  assigneeId: number | null;
  assigneeName: string | null;
  state: TConversationState;
  snoozedUntil: Date | null;
  overdue: boolean;
};

const THREADS_PAGE = 50;
const THREADS_REFUSED = { message: 'That page of conversations is not valid: reload the inbox.', field: 'Not a cursor from the inbox.' };

/** The statement that reads a page of conversations (and one more) for a reader: also what the benchmark EXPLAINs. */
export function threadsPageQuery(viewer: TViewer, page: TThreadsPage): { sql: string; bind: unknown[] } {
  const after = page.cursor ? decodeCursor(page.cursor, isTimestampText, THREADS_REFUSED) : null;
  return {
    sql: THREADS_SQL[page.filter ?? 'all'],
    bind: [
      (page.limit ?? THREADS_PAGE) + 1,
      after?.value ?? null,
      after?.id ?? null,
      viewer.id,
      page.state ?? 'open',
      page.replyTargetMinutes ?? DEFAULT_REPLY_TARGET_MINUTES,
    ],
  };
}

/**
 * A page of threads, newest activity first: one per client, plus one per unlinked number, of those
 * the reader may see. The cursor is the last conversation's activity time (as PostgreSQL printed
 * it) and last record id: a conversation that moves to the top meanwhile is not listed twice.
 */
export async function listThreads(
  viewer: TViewer,
  page: TThreadsPage = {},
): Promise<{ threads: TThreadSummary[]; nextCursor: string | null }> {
  const limit = page.limit ?? THREADS_PAGE;
  const { sql, bind } = threadsPageQuery(viewer, page);
  const { rows, next } = endPage(await db().query<TThreadRow>(sql, { bind, type: QueryTypes.SELECT }), limit, (row) => row.cursorAt);
  return { threads: rows.map(toThreadSummary), nextCursor: next };
}

/** One conversation's summary (the open thread's, whether or not a loaded page lists it); null before its first message. */
export async function getThreadSummary(reader: TReader, ref: TThreadRef, replyTargetMinutes: number): Promise<TThreadSummary | null> {
  if ('clientId' in ref) await assertSubjectVisible(reader, { clientId: ref.clientId }); // walled or no such client: NOT_FOUND, as for its thread
  const key = threadKeyOfRef('clientId' in ref ? ref : { phone: phoneDigitsOf(ref.phone) });
  const [row] = await db().query<TThreadRow>(THREAD_BY_KEY_SQL, {
    bind: [1, null, null, reader.id, null, replyTargetMinutes, key],
    type: QueryTypes.SELECT,
  });
  return row ? toThreadSummary(row) : null;
}

/**
 * How many conversations have unread messages the reader may open, and how many messages that is
 * (the top bar's badge and the tab's title).
 */
export async function countUnread(viewer: TViewer): Promise<{ conversations: number; messages: number }> {
  const [row] = await db().query<{ conversations: string; messages: string | null }>(
    `WITH ${seenSummariesCte('$1')}
     SELECT count(*) AS conversations, sum(${SEEN_UNREAD}) AS messages
     FROM chat_threads t LEFT JOIN seen s ON s.client_id = t.client_id
     WHERE t.unread > 0 AND ${SEEN_UNREAD} > 0 AND ${visibleToSql('$1', 't.client_id', 'NULL')}`,
    { bind: [viewer.id], type: QueryTypes.SELECT },
  );
  return { conversations: Number(row?.conversations ?? 0), messages: Number(row?.messages ?? 0) };
}

function toThreadSummary(r: TThreadRow): TThreadSummary {
  const candidates = r.candidates ?? [];
  return {
    key: threadKeyOf(r),
    clientId: r.clientId,
    clientName: r.clientName,
    phone: r.peerPhone,
    contactName: r.contactName,
    match: r.clientId !== null ? 'linked' : candidates.length > 1 ? 'ambiguous' : 'unknown',
    candidates,
    last: {
      id: r.id,
      body: r.body,
      direction: r.direction,
      status: r.status,
      outcome: r.outcome === 'unknown' ? 'unknown' : null,
      createdAt: r.createdAt,
      kind: r.kind,
      fileName: r.fileName,
    },
    unread: r.unread,
    lastInboundAt: r.lastInboundAt,
    assignee: r.assigneeId !== null ? { id: r.assigneeId, name: r.assigneeName ?? '' } : null,
    state: r.state,
    snoozedUntil: r.snoozedUntil,
    overdue: r.overdue,
  };
}
