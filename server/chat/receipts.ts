import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { NOTIFY_CTE } from '../events/chat-events';
import type { TReceipt, TReceiptError } from '../webhook/parse-payload';

export type TChangedStatus = { id: number; status: string; clientId: number | null; peerPhone: string | null };

/** The text a failed record shows: the provider's own words, with its error code. */
export function describeReceiptError(error: TReceiptError | null): string {
  const words = error?.details ?? error?.title;
  const code = error?.code != null ? ` (provider error ${error.code})` : '';
  return words ? `The provider could not deliver this message: ${words}${code}` : `The provider could not deliver this message${code}.`;
}

// Serialises work on the same provider ids across transactions and instances, so a receipt and
// the send that stores its id can never miss each other. Locks are taken in key order (no deadlock).
const LOCK_IDS_SQL = `
SELECT pg_advisory_xact_lock(k)
FROM (SELECT DISTINCT hashtextextended(id, 0) AS k FROM unnest($1::text[]) AS id ORDER BY k) AS keys`;

const RECORD_HISTORY_SQL = `
INSERT INTO chat_receipts (chat_msg_id, status, provider_timestamp, error)
SELECT chat_msg_id, status, provider_timestamp, error
FROM jsonb_to_recordset($1::jsonb) AS x(chat_msg_id text, status text, provider_timestamp timestamptz, error jsonb)
ON CONFLICT (chat_msg_id, status) DO NOTHING`;

// Applies the best receipt ever kept for each id, in one set-based UPDATE that only moves up
// pending < sent < delivered < read, reaches failed from any other state, and never leaves failed.
// Concurrent updates of one row re-check the WHERE on the newest version, so nothing goes backwards.
const APPLY_BEST_SQL = `
WITH best AS (
  SELECT DISTINCT ON (r.chat_msg_id) r.chat_msg_id, r.status, r.error
  FROM chat_receipts r
  WHERE r.chat_msg_id = ANY($1::text[])
  ORDER BY r.chat_msg_id, array_position(ARRAY['sent','delivered','read','failed'], r.status) DESC
), changed AS (
  UPDATE communications c
  SET status = b.status,
      error = CASE WHEN b.status = 'failed' THEN b.error->>'text' ELSE c.error END,
      updated_at = now()
  FROM best b
  WHERE c.metadata->>'chat_msg_id' = b.chat_msg_id
    AND c.direction = 'outbound'
    AND c.status IS DISTINCT FROM 'failed'
    AND (b.status = 'failed'
         OR array_position(ARRAY['pending','sent','delivered','read'], c.status)
            < array_position(ARRAY['pending','sent','delivered','read'], b.status))
  RETURNING c.id, c.status, c.client_id, c.peer_phone
), ${NOTIFY_CTE('changed')}
SELECT id, status, client_id AS "clientId", peer_phone AS "peerPhone", (SELECT count(*) FROM announced) AS "notified"
FROM changed`;

async function applyKeptReceipts(sequelize: Sequelize, ids: string[], transaction: Transaction): Promise<TChangedStatus[]> {
  return sequelize.query<TChangedStatus>(APPLY_BEST_SQL, { bind: [ids], type: QueryTypes.SELECT, transaction });
}

/**
 * Keeps every receipt (the history the thread shows, and the early ones whose record is not
 * stored yet) and applies them to the matching outbound records. Returns the records changed.
 */
export async function applyReceipts(sequelize: Sequelize, receipts: TReceipt[]): Promise<TChangedStatus[]> {
  if (receipts.length === 0) return [];
  const ids = [...new Set(receipts.map((r) => r.chatMsgId))];
  const history = receipts.map((r) => ({
    chat_msg_id: r.chatMsgId,
    status: r.status,
    provider_timestamp: r.providerTimestamp?.toISOString() ?? null,
    error: r.status === 'failed' ? { ...r.error, text: describeReceiptError(r.error) } : null,
  }));
  return sequelize.transaction(async (transaction) => {
    await sequelize.query(LOCK_IDS_SQL, { bind: [ids], transaction });
    await sequelize.query(RECORD_HISTORY_SQL, { bind: [JSON.stringify(history)], transaction });
    return applyKeptReceipts(sequelize, ids, transaction);
  });
}

/**
 * Stores the provider id on an outbound record that the provider accepted (pending → sent) and
 * applies any receipt that arrived before this moment (the provider can report before its own
 * send response has been saved). Returns the record's resulting status.
 */
export async function recordProviderMessageId(sequelize: Sequelize, communicationId: number, chatMsgId: string): Promise<string> {
  return sequelize.transaction(async (transaction) => {
    await sequelize.query(LOCK_IDS_SQL, { bind: [[chatMsgId]], transaction });
    await sequelize.query(
      `UPDATE communications
       SET metadata = metadata || jsonb_build_object('chat_msg_id', $2::text),
           status = CASE WHEN status = 'pending' THEN 'sent' ELSE status END,
           updated_at = now()
       WHERE id = $1`,
      { bind: [communicationId, chatMsgId], transaction },
    );
    const changed = await applyKeptReceipts(sequelize, [chatMsgId], transaction);
    if (changed[0]) return changed[0].status;
    const [row] = await sequelize.query<{ status: string }>('SELECT status FROM communications WHERE id = $1', {
      bind: [communicationId],
      type: QueryTypes.SELECT,
      transaction,
    });
    return row?.status ?? 'sent';
  });
}
