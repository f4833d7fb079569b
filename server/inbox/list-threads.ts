import type { TCommunication, TMessageKind } from '../../shared/communication';
import { threadKeyOf } from '../../shared/thread-key';
import { decodeCursor, endPage, isTimestampText } from '../core/record-pages';
import { queryRows, type Sql } from '../core/sql';
import type { TReader, TViewer } from '../core/visibility';
import { assertSubjectVisible } from '../access';
import { conversationKeyOf, type TConversationState, type TThreadRef } from '../conversations';
import { threadByKeySql, threadsPageSql, type TThreadFilter } from './threads-sql';
import { hasFewUnreadKept } from './unread-kept';

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
  /** Who handles it (server/ownership/README.md "Ownership"); null: nobody yet. */
  assignee: { id: number; name: string } | null;
  state: TConversationState;
  /** When a snoozed conversation opens again by itself. */
  snoozedUntil: Date | null;
  /** The client wrote last, longer ago than the reply target. */
  overdue: boolean;
};

/** The reply target when none is given (REPLY_TARGET_MINUTES's default). */
const DEFAULT_REPLY_TARGET_MINUTES = 240;

export type TThreadsPage = {
  limit?: number;
  filter?: TThreadFilter;
  cursor?: string;
  /** The state listed (default open). */
  state?: TConversationState;
  replyTargetMinutes?: number;
  /** The unread filter starts from the reader's kept counts (listThreads decides). */
  unreadFromKept?: boolean;
  /** Only conversations with a message through this firm number. */
  firmNumberId?: number;
};

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
export function threadsPageQuery(viewer: TViewer, page: TThreadsPage): Sql {
  const after = page.cursor ? decodeCursor(page.cursor, isTimestampText, THREADS_REFUSED) : null;
  return threadsPageSql(page.filter ?? 'all', {
    limit: (page.limit ?? THREADS_PAGE) + 1,
    after: after ? { at: after.value, id: after.id } : null,
    viewer,
    state: page.state ?? 'open',
    replyTargetMinutes: page.replyTargetMinutes ?? DEFAULT_REPLY_TARGET_MINUTES,
    unreadFromKept: page.unreadFromKept,
    firmNumberId: page.firmNumberId,
  });
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
  const unreadFromKept = page.filter === 'unread' && (await hasFewUnreadKept(viewer));
  const { rows, next } = endPage(
    await queryRows<TThreadRow>(threadsPageQuery(viewer, { ...page, unreadFromKept })),
    limit,
    (row) => row.cursorAt,
  );
  return { threads: rows.map(toThreadSummary), nextCursor: next };
}

/** One conversation's summary (the open thread's, whether or not a loaded page lists it); null before its first message. */
export async function getThreadSummary(reader: TReader, ref: TThreadRef, replyTargetMinutes: number): Promise<TThreadSummary | null> {
  if ('clientId' in ref) await assertSubjectVisible(reader, { clientId: ref.clientId }); // walled or no such client: NOT_FOUND, as for its thread
  const key = conversationKeyOf(ref);
  const [row] = await queryRows<TThreadRow>(
    threadByKeySql(key, { limit: 1, after: null, viewer: reader, state: null, replyTargetMinutes }),
  );
  return row ? toThreadSummary(row) : null;
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
