import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { NOTIFY_CTE } from '../events/chat-events';
import type { TReceipt, TReceiptError } from '../webhook/parse-payload';


/** The text a failed record shows: the provider's own words, with its error code. */
export function describeReceiptError(error: TReceiptError | null): string {
  const words = error?.details ?? error?.title;
  const code = error?.code != null ? ` (provider error ${error.code})` : '';
  return words ? `The provider could not deliver this message: ${words}${code}` : `The provider could not deliver this message${code}.`;
}

// Serialises work on the same provider ids across transactions and instances, so a receipt and
// the send that stores its id can never miss each other. Ids are hashed into 256 lock buckets
// (a batch of any size takes at most 256 locks, well inside the lock table) taken in bucket order
// (no deadlock). Unrelated ids that share a bucket merely wait for each other.
const LOCK_CLASS = 7_340_020;
const LOCKS_CTE = `locks AS MATERIALIZED (
  SELECT pg_advisory_xact_lock(${LOCK_CLASS}, b)
  FROM (SELECT DISTINCT hashtext(id) & 255 AS b FROM unnest($1::text[]) AS id ORDER BY b) AS buckets
)`;

const LOCK_IDS_SQL = `WITH ${LOCKS_CTE} SELECT count(*) FROM locks`;

// Takes the locks, then keeps every receipt (history, and early ones whose record is not stored yet).
const LOCK_AND_RECORD_SQL = `
WITH ${LOCKS_CTE}
INSERT INTO chat_receipts (chat_msg_id, status, provider_timestamp, error)
SELECT r.* FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::jsonb[]) AS r
WHERE (SELECT count(*) FROM locks) >= 0
ON CONFLICT (chat_msg_id, status) DO NOTHING`;

// The monotonic rule as one set-based UPDATE: only moves up pending < sent < delivered < read,
// reaches failed from any other state, never leaves failed. Concurrent updates of one row
// re-check the WHERE on its newest version, so nothing goes backwards.
const monotonicUpdate = (source: string) => `
WITH best AS (${source}), changed AS (
  UPDATE communications c
  SET status = b.status,
      error = CASE WHEN b.status = 'failed' THEN b.error_text ELSE c.error END,
      updated_at = now()
  FROM best b
  WHERE c.metadata->>'chat_msg_id' = b.chat_msg_id
    AND c.direction = 'outbound'
    AND c.status IS DISTINCT FROM 'failed'
    AND (b.status = 'failed'
         OR array_position(ARRAY['pending','sent','delivered','read'], c.status)
            < array_position(ARRAY['pending','sent','delivered','read'], b.status))
  RETURNING c.id
), ${NOTIFY_CTE('changed')}
SELECT count(*)::int AS updated, (SELECT count(*) FROM announced)::int AS notified FROM changed`;

// A batch: the best receipt per id, reduced in the app, straight from the request.
const APPLY_INPUT_SQL = monotonicUpdate(
  'SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS input(chat_msg_id, status, error_text)',
);

// One id being stored: the best receipt ever kept for it (receipts that came before the id).
const APPLY_KEPT_SQL = monotonicUpdate(`
  SELECT DISTINCT ON (r.chat_msg_id) r.chat_msg_id, r.status, r.error->>'text' AS error_text
  FROM chat_receipts r
  WHERE r.chat_msg_id = ANY($1::text[])
  ORDER BY r.chat_msg_id, array_position(ARRAY['sent','delivered','read','failed'], r.status) DESC`);

const RANK = { sent: 1, delivered: 2, read: 3, failed: 4 } as const;

/** Returns how many records changed; live views hear of them through the statement's NOTIFY. */
async function runUpdate(sequelize: Sequelize, sql: string, bind: unknown[], transaction: Transaction): Promise<number> {
  const [row] = await sequelize.query<{ updated: number }>(sql, { bind, type: QueryTypes.SELECT, transaction });
  return row?.updated ?? 0;
}

/**
 * Keeps every receipt (the history the thread shows, and the early ones whose record is not
 * stored yet) and applies them to the matching outbound records. Returns how many records changed.
 */
export async function applyReceipts(sequelize: Sequelize, receipts: TReceipt[]): Promise<number> {
  if (receipts.length === 0) return 0;
  // Receipts kept earlier need not be re-read: each was applied when it came if its record
  // existed, or is applied by recordProviderMessageId when the record's id is stored.
  const best = new Map<string, TReceipt>();
  for (const receipt of receipts) {
    const current = best.get(receipt.chatMsgId);
    if (!current || RANK[receipt.status] > RANK[current.status]) best.set(receipt.chatMsgId, receipt);
  }
  const ids = [...best.keys()];
  // Column arrays (unnest) parse faster than one JSON document of rows.
  const history = [
    receipts.map((r) => r.chatMsgId),
    receipts.map((r) => r.status),
    receipts.map((r) => r.providerTimestamp?.toISOString() ?? null),
    receipts.map((r) => (r.status === 'failed' ? JSON.stringify({ ...r.error, text: describeReceiptError(r.error) }) : null)),
  ];
  return sequelize.transaction(async (transaction) => {
    await sequelize.query(LOCK_AND_RECORD_SQL, { bind: [ids, ...history], transaction });
    // A new statement, so a new snapshot: it sees whatever the lock holders committed.
    const winners = [...best.values()];
    return runUpdate(
      sequelize,
      APPLY_INPUT_SQL,
      [ids, winners.map((r) => r.status), winners.map((r) => (r.status === 'failed' ? describeReceiptError(r.error) : null))],
      transaction,
    );
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
    await runUpdate(sequelize, APPLY_KEPT_SQL, [[chatMsgId]], transaction);
    const [row] = await sequelize.query<{ status: string }>('SELECT status FROM communications WHERE id = $1', {
      bind: [communicationId],
      type: QueryTypes.SELECT,
      transaction,
    });
    return row?.status ?? 'sent';
  });
}
