import type { TCommunication, TReceiptStatus } from '../../shared/communication';
import { Communication, communicationDtoOf, withDetails, type TCommunicationRecord } from '../core/db/models/index';
import { readRecordPage } from '../core/record-pages';
import { queryRows, sql } from '../core/sql';
import type { TReader } from '../core/visibility';
import { threadKeyOf } from '../../shared/thread-key';
import { assertSubjectVisible } from '../access';
import { phoneDigitsOf, type TThreadRef } from '../conversations';

export type TReceiptStep = { status: TReceiptStatus; at: Date | null };
/** A chat record as the thread shows it: with when each receipt said what. */
export type TThreadItem = TCommunication & { receipts: TReceiptStep[]; readAt: Date | null };

const THREAD_LIMIT = 500;

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
  const items = (await withDetails(rows.reverse())).map(toThreadItem);
  return { items: await readFor(reader, ref, items), nextCursor: next };
}

/**
 * Each item's `readAt` as the reader's own (server/inbox/README.md "Unread"): when they read the
 * conversation through it, or null; a conversation they never opened has nothing read.
 */
async function readFor(reader: TReader, ref: TThreadRef, items: TThreadItem[]): Promise<TThreadItem[]> {
  const key = threadKeyOf(
    'clientId' in ref ? { clientId: ref.clientId, peerPhone: null } : { clientId: null, peerPhone: phoneDigitsOf(ref.phone) },
  );
  const [mark] = await queryRows<{ through: number; at: Date }>(
    sql`SELECT read_through_id AS through, read_at AS at FROM read_marks WHERE user_id = ${reader.id} AND thread_key = ${key}`,
  );
  return items.map((item) => ({ ...item, readAt: item.direction === 'inbound' && mark && item.id <= mark.through ? mark.at : null }));
}
