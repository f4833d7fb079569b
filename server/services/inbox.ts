import { QueryTypes, type Sequelize } from 'sequelize';
import type { TCommunication } from '../../shared/communication';
import { parsePhoneDigits } from '../../shared/phone';
import { threadKeyOf } from '../../shared/thread-key';
import { Communication } from '../db/models';
import { AppError } from '../errors';
import { assertClientExists } from './clients';

export type TThreadRef = { clientId: number } | { phone: string };
export type TReceiptStep = { status: 'sent' | 'delivered' | 'read' | 'failed'; at: Date | null };
/** A chat record as the thread shows it: with when each receipt said what. */
export type TThreadItem = TCommunication & { receipts: TReceiptStep[]; readAt: Date | null };

export type TThreadSummary = {
  key: string;
  clientId: number | null;
  clientName: string | null;
  phone: string | null;
  contactName: string | null;
  /** linked: a client's thread; unknown: no client has this number; ambiguous: several do. */
  match: 'linked' | 'unknown' | 'ambiguous';
  candidates: { id: number; name: string }[];
  last: { id: number; body: string; direction: 'inbound' | 'outbound' | null; status: TCommunication['status']; createdAt: Date };
  unread: number;
  lastInboundAt: Date | null;
};

const THREAD_LIMIT = 500;

function phoneDigitsOf(phone: string): string {
  const digits = parsePhoneDigits(phone);
  if (!digits) throw new AppError('INVALID_INPUT', 'That is not a valid number.');
  return digits;
}

function whereForThread(ref: TThreadRef): { clientId: number } | { clientId: null; peerPhone: string } {
  return 'clientId' in ref ? { clientId: ref.clientId } : { clientId: null, peerPhone: phoneDigitsOf(ref.phone) };
}

const RECEIPT_ORDER = ['sent', 'delivered', 'read', 'failed'] as const;

function toThreadItem(row: Communication): TThreadItem {
  const history = row.receipts ?? {};
  const receipts = RECEIPT_ORDER.filter((status) => history[status]).map((status) => ({
    status,
    at: history[status]?.at ? new Date(history[status]!.at!) : null,
  }));
  return { ...row.toDto(), readAt: row.readAt ?? null, receipts };
}

/** The records with these ids, as thread items (what live views receive). */
export async function loadThreadItems(ids: number[]): Promise<TThreadItem[]> {
  const rows = await Communication.findAll({ where: { id: ids, type: 'chat' }, order: [['id', 'ASC']] });
  return rows.map(toThreadItem);
}

/** One thread, oldest first: the client's chat records, or an unlinked number's. */
export async function getThread(ref: TThreadRef): Promise<{ items: TThreadItem[] }> {
  if ('clientId' in ref) await assertClientExists(ref.clientId);
  const rows = await Communication.findAll({
    where: { type: 'chat', ...whereForThread(ref) },
    order: [['createdAt', 'DESC'], ['id', 'DESC']],
    limit: THREAD_LIMIT,
  });
  return { items: rows.reverse().map(toThreadItem) };
}

/** Marks the thread's inbound records read; returns how many were unread. */
export async function markThreadRead(ref: TThreadRef, now: Date): Promise<number> {
  const [count] = await Communication.update(
    { readAt: now },
    { where: { type: 'chat', direction: 'inbound', readAt: null, ...whereForThread(ref) } },
  );
  return count;
}

/**
 * Files an unlinked number's records under a client: an explicit human decision, the only way
 * an ambiguous number is ever linked. Returns the records moved.
 */
export async function linkPhoneToClient(sequelize: Sequelize, phone: string, clientId: number): Promise<number[]> {
  await assertClientExists(clientId);
  const rows = await sequelize.query<{ id: number }>(
    `UPDATE communications SET client_id = $1, updated_at = now()
     WHERE type = 'chat' AND client_id IS NULL AND peer_phone = $2 RETURNING id`,
    { bind: [clientId, phoneDigitsOf(phone)], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}

// Reads the per-conversation summary rows (chat_threads, kept by a trigger) newest first, and
// joins each row's last record for its current text and status.
const THREADS_SQL = `
SELECT t.last_id AS id, t.client_id AS "clientId", coalesce(t.peer_phone, l.peer_phone) AS "peerPhone",
  l.body, l.direction, l.status, l.created_at AS "createdAt", cl.name AS "clientName",
  t.unread, t.last_inbound_at AS "lastInboundAt", t.contact_name AS "contactName",
  CASE WHEN t.client_id IS NULL THEN
    (SELECT coalesce(json_agg(json_build_object('id', m.id, 'name', m.name) ORDER BY m.name), '[]'::json)
     FROM clients m WHERE m.phone_last9 = right(t.peer_phone, 9))
  END AS candidates
FROM chat_threads t
JOIN communications l ON l.id = t.last_id
LEFT JOIN clients cl ON cl.id = t.client_id
ORDER BY t.last_at DESC, t.last_id DESC
LIMIT $1`;

type TThreadRow = {
  id: number;
  clientId: number | null;
  peerPhone: string | null;
  body: string;
  direction: 'inbound' | 'outbound' | null;
  status: TCommunication['status'];
  createdAt: Date;
  clientName: string | null;
  unread: number;
  lastInboundAt: Date | null;
  contactName: string | null;
  candidates: { id: number; name: string }[] | null;
};

/** Threads, newest activity first: one per client, plus one per unlinked number. */
export async function listThreads(sequelize: Sequelize, limit = 100): Promise<TThreadSummary[]> {
  const rows = await sequelize.query<TThreadRow>(THREADS_SQL, { bind: [limit], type: QueryTypes.SELECT });
  return rows.map((r) => {
    const candidates = r.candidates ?? [];
    return {
      key: threadKeyOf(r),
      clientId: r.clientId,
      clientName: r.clientName,
      phone: r.peerPhone,
      contactName: r.contactName,
      match: r.clientId !== null ? 'linked' : candidates.length > 1 ? 'ambiguous' : 'unknown',
      candidates,
      last: { id: r.id, body: r.body, direction: r.direction, status: r.status, createdAt: r.createdAt },
      unread: r.unread,
      lastInboundAt: r.lastInboundAt,
    };
  });
}
