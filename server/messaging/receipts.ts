import { QueryTypes, type Transaction } from 'sequelize';
import { UNKNOWN_OUTCOME_PREFIX } from '../../shared/provider-messages';
import type { TReceiptHistory } from '../../shared/communication';
import { recordAuditEvent, SYSTEM_ACTOR } from '../audit';
import { announcedCte } from '../events';
import { CLIENT_NAME_SLOT, messageForProviderCode } from '../provider';
import { db } from '../core/db/db';
import { queryRows, raw, sql, sqlInteger, type Sql } from '../core/sql';
import type { TReceipt, TReceiptError } from './inbound-message';

/** The text a failed record shows: the provider's own words, with its error code. */
export function describeReceiptError(error: TReceiptError | null): string {
  // A code that asks something specific (the 24-hour window: send a template) says so; the name
  // slot is filled with the record's client when the status is written.
  const forCode = messageForProviderCode(error?.code, CLIENT_NAME_SLOT);
  if (forCode) return forCode;
  const words = error?.details ?? error?.title;
  const code = error?.code != null ? ` (provider error ${error.code})` : '';
  return words ? `The provider could not deliver this message: ${words}${code}` : `The provider could not deliver this message${code}.`;
}

const RANK = { sent: 1, delivered: 2, read: 3, failed: 4 } as const;

/**
 * Leads the error of an adopted send (`reconciled`) that a receipt then failed: the failure is
 * known only through an id matched by its receipt, so it may be another message's, and a Retry
 * asks first (retry-message.ts; decision 0014).
 */
export const ADOPTED_FAILURE_PREFIX = `${UNKNOWN_OUTCOME_PREFIX} the provider's answer to this send was lost, and this report was matched to it by its receipt alone, so it may be another message's; check with them before sending it again. `;

// Receipts for ids not stored (yet) are kept for the early-receipt race, which lasts moments; ids
// that never appear (messages sent by other tools on the number, or junk) must not pile up: at most
// this many ids are kept per delivery, and pruneExpiredRows drops them after a day.
export const MAX_KEPT_PER_DELIVERY = 200;

// One statement for a whole batch. Per provider id: the best status and the receipts' history.
// Matching outbound records are locked (in id order: concurrent batches cannot deadlock), so the
// upgrade is decided on their current status, then get both in one UPDATE; the status only moves up
// pending < sent < delivered < read, reaches failed from any other state and never leaves failed.
// Ids with no record yet are kept in chat_receipts until the send that stores them.
const applySql = (rows: TApplyRow[]): Sql => sql`
WITH input AS (
  SELECT * FROM unnest(${rows.map((r) => r.chatMsgId)}::text[], ${rows.map((r) => r.status)}::text[], ${rows.map((r) => r.errorText)}::text[],
    ${rows.map((r) => JSON.stringify(r.history))}::jsonb[], ${rows.map((r) => r.recipientDigits)}::text[],
    ${rows.map((r) => r.firmNumberId)}::int[]) AS i(chat_msg_id, status, error_text, history, recipient_digits, firm_number_id)
), matched AS (
  SELECT c.id, i.*,
    c.status IS DISTINCT FROM 'failed' AND (i.status = 'failed'
      OR array_position(ARRAY['pending','sent','delivered','read'], c.status)
         < array_position(ARRAY['pending','sent','delivered','read'], i.status)) AS upgrade
  FROM communications c JOIN input i ON c.metadata->>'chat_msg_id' = i.chat_msg_id
  -- A receipt changes only a message of the number it came through (server/numbers/README.md "Several numbers").
  WHERE c.direction = 'outbound' AND (i.firm_number_id IS NULL OR c.firm_number_id = i.firm_number_id)
  ORDER BY c.id
  FOR UPDATE OF c
), changed AS (
  UPDATE communications c
  SET status = CASE WHEN m.upgrade THEN m.status ELSE c.status END,
      error = CASE WHEN m.upgrade AND m.status = 'failed'
        THEN CASE WHEN c.metadata ? 'reconciled' THEN ${ADOPTED_FAILURE_PREFIX}::text ELSE '' END
          || replace(m.error_text, '${raw(CLIENT_NAME_SLOT)}', coalesce((SELECT cl.name FROM clients cl WHERE cl.id = c.client_id), 'this contact'))
        ELSE c.error END,
      receipts = m.history || c.receipts, -- the first report of each status wins
      updated_at = now()
  FROM matched m
  WHERE c.id = m.id
  RETURNING c.id, m.upgrade
), kept AS (
  INSERT INTO chat_receipts (chat_msg_id, status, provider_timestamp, error, recipient_digits, firm_number_id)
  SELECT u.chat_msg_id, e.key, (e.value->>'at')::timestamptz, e.value, u.recipient_digits, u.firm_number_id
  FROM (
    -- row_number, not LIMIT: a LIMIT here turns the anti-join into a slow fast-start plan (6× slower batches).
    SELECT i.chat_msg_id, i.history, i.recipient_digits, i.firm_number_id, row_number() OVER () AS n
    FROM input i WHERE NOT EXISTS (SELECT 1 FROM matched m WHERE m.chat_msg_id = i.chat_msg_id)
  ) u CROSS JOIN LATERAL jsonb_each(u.history) AS e
  WHERE u.n <= ${sqlInteger(MAX_KEPT_PER_DELIVERY)}
  ON CONFLICT (chat_msg_id, status) DO NOTHING
  RETURNING 1
), ${announcedCte(sql`changed`)}
SELECT count(*) FILTER (WHERE upgrade)::int AS updated,
       (SELECT count(*) FROM kept)::int AS kept,
       (SELECT count(*) FROM announced)::int AS notified
FROM changed`;

type TApplyRow = {
  chatMsgId: string;
  status: TReceipt['status'];
  errorText: string | null;
  history: TReceiptHistory;
  recipientDigits: string | null;
  /** The firm number the receipt came through (the webhook's route step); null: not routed, any. */
  firmNumberId: number | null;
};

/** Per id: the best receipt (failed > read > delivered > sent) and every receipt's time. */
function reduceReceipts(receipts: TReceipt[]): TApplyRow[] {
  const rows = new Map<string, TApplyRow>();
  for (const r of receipts) {
    const entry = {
      at: r.providerTimestamp?.toISOString() ?? null,
      ...(r.status === 'failed' ? { code: r.error?.code ?? null, details: r.error?.details ?? r.error?.title ?? null } : {}),
    };
    const row = rows.get(r.chatMsgId);
    if (!row) {
      rows.set(r.chatMsgId, {
        chatMsgId: r.chatMsgId,
        status: r.status,
        errorText: r.status === 'failed' ? describeReceiptError(r.error) : null,
        history: { [r.status]: entry },
        recipientDigits: r.recipientDigits ?? null,
        firmNumberId: r.firmNumberId ?? null,
      });
      continue;
    }
    row.history[r.status] ??= entry;
    row.recipientDigits ??= r.recipientDigits ?? null;
    if (RANK[r.status] > RANK[row.status]) {
      row.status = r.status;
      row.errorText = r.status === 'failed' ? describeReceiptError(r.error) : null;
    }
  }
  return [...rows.values()];
}

async function applyRows(rows: TApplyRow[]): Promise<{ updated: number; kept: number }> {
  const [result] = await queryRows<{ updated: number; kept: number }>(applySql(rows));
  return { updated: result?.updated ?? 0, kept: result?.kept ?? 0 };
}

/**
 * Applies (and removes) kept receipts whose record now exists. Both sides of the race call it after
 * their own write has committed: the receipt that found no record, and the send that stored the
 * id. Whichever commits second is sure to see the other's write, so no receipt is ever stranded.
 */
async function applyKeptReceipts(ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const kept = await db().query<{
    chat_msg_id: string;
    status: TReceipt['status'];
    at: Date | null;
    error: { code?: number; details?: string; title?: string } | null;
    firm_number_id: number | null;
  }>(
    `DELETE FROM chat_receipts r
     WHERE r.chat_msg_id = ANY($1::text[])
       AND EXISTS (SELECT 1 FROM communications c WHERE c.metadata->>'chat_msg_id' = r.chat_msg_id AND c.direction = 'outbound'
                     AND (r.firm_number_id IS NULL OR c.firm_number_id = r.firm_number_id))
     RETURNING r.chat_msg_id, r.status, r.provider_timestamp AS at, r.error, r.firm_number_id`,
    { bind: [ids], type: QueryTypes.SELECT },
  );
  if (kept.length === 0) return 0;
  const receipts: TReceipt[] = kept.map((k) => ({
    chatMsgId: k.chat_msg_id,
    status: k.status,
    providerTimestamp: k.at,
    error: k.status === 'failed' ? { code: k.error?.code ?? null, title: k.error?.title ?? null, details: k.error?.details ?? null } : null,
    ...(k.firm_number_id !== null ? { firmNumberId: k.firm_number_id } : {}),
  }));
  return (await applyRows(reduceReceipts(receipts))).updated;
}

/**
 * Applies a webhook's receipts to the matching outbound records and keeps their history; keeps
 * the ones whose record is not stored yet. Returns how many records changed status. Live views
 * hear of every touched record through the statement's NOTIFY.
 */
export async function applyReceipts(receipts: TReceipt[]): Promise<number> {
  if (receipts.length === 0) return 0;
  const rows = reduceReceipts(receipts);
  const { updated, kept } = await applyRows(rows);
  if (kept === 0) return updated;
  // Some ids had no record: their send may have committed meanwhile (see applyKeptReceipts), or
  // be one whose answer was lost, which the receipts kept for its number may now name.
  const numbers = [...new Set(rows.flatMap((r) => (r.recipientDigits ? [r.recipientDigits] : [])))];
  const adopted = await adoptUnknownOutcomeSends(numbers);
  return updated + (await applyKeptReceipts([...new Set([...rows.map((r) => r.chatMsgId), ...adopted])]));
}

/** The key of a send's metadata noting when its provider call began (record-and-send.ts). */
export const PROVIDER_CALL_AT = 'provider_call_at';
/**
 * The key, on a client's message, of the firm's reaction calls to it whose provider id is not known:
 * `[{key, at}]`, `at` by the database's clock, noted before the call and dropped once it is answered
 * with an id or refused (react-to-message.ts).
 */
export const FIRM_REACTION_CALLS = 'firm_reaction_calls';
/** How long after a send's provider call began a receipt may still be taken for its. */
export const ADOPT_WINDOW = '10 minutes';
/**
 * How much earlier than the call began the provider may date a receipt that is still the call's:
 * its timestamps are whole seconds (up to 1 s early) and its clock may trail ours a little. Kept
 * small because a receipt the provider held back by retrying its webhook arrives late but keeps its
 * own time, which is then all that tells it is older than the call; a clock further off adopts
 * nothing (decision 0014).
 */
const PROVIDER_CLOCK_SLACK = '2 seconds';
/** A receipt the provider dates this far after it reached this server has a clock not to be trusted: it adopts nothing. */
const PROVIDER_CLOCK_AHEAD = '1 minute';

/**
 * A send whose answer was lost has no provider id, so its receipts match nothing
 * (server/decisions/0014-unknown-outcome-is-not-failed.md). Per number given: an id no record has,
 * kept with a `sent`, `delivered` or `read` receipt, is taken by a send of unknown outcome only when
 * the id first reached this server after that send's provider call began (both by the database's
 * clock) and within the window, the provider dated it (no earlier than the call, within the slack,
 * and not far after it came), no other send to that number — waiting, unknown or failed — and no
 * reaction to it without a known id had begun its call by then, and no other such id could be that
 * send's. A receipt that reached this server first or that the provider dates before the call (the
 * firm's phone's or another tool's message, an earlier failed send's, one held back by webhook
 * retries), or that a reaction could own: nothing is guessed. The record takes the id, marked `reconciled`, and the trail says so.
 * Returns the ids taken.
 */
async function adoptUnknownOutcomeSends(numbers: string[]): Promise<string[]> {
  if (numbers.length === 0) return [];
  return db().transaction(async (transaction) => {
    const adopted = await db().query<{ id: number; chatMsgId: string }>(
      `WITH ids AS (
         -- Each id kept for these numbers that no record has, and when it first reached this server
         -- (any of its statuses).
         -- dated: every one carries the provider's time, none later than the minute after it came.
         SELECT r.chat_msg_id, min(r.recipient_digits) AS digits, min(r.firm_number_id) AS firm, min(r.created_at) AS arrived,
                min(r.provider_timestamp) AS stamped, bool_or(r.status <> 'failed') AS went,
                bool_and(r.provider_timestamp IS NOT NULL
                         AND r.provider_timestamp <= r.created_at + interval '${PROVIDER_CLOCK_AHEAD}') AS dated
         FROM chat_receipts r
         WHERE r.chat_msg_id IN (SELECT k.chat_msg_id FROM chat_receipts k WHERE k.recipient_digits = ANY($1::text[]))
           AND NOT EXISTS (SELECT 1 FROM communications x WHERE x.metadata->>'chat_msg_id' = r.chat_msg_id)
         GROUP BY r.chat_msg_id
         -- The receipt of a reaction the firm sent that number is no send's (react-to-message.ts).
         HAVING NOT EXISTS (SELECT 1 FROM communications f WHERE f.peer_phone = min(r.recipient_digits) AND f.direction = 'inbound'
                              AND f.metadata->'firm_reaction_ids' ? r.chat_msg_id)
       ), owners AS (
         -- Every send that could own each id: no provider id, not settled, its call begun by the time
         -- the id arrived (a record without the note: made by then). Failed ones too: an earlier
         -- version's failure may have followed an acceptance.
         SELECT i.chat_msg_id, c.id, c.status, c.metadata->>'outcome' AS outcome,
                (c.metadata->>'${PROVIDER_CALL_AT}')::timestamptz AS call_at
         FROM ids i JOIN communications c
           ON c.peer_phone = i.digits AND c.direction = 'outbound' AND c.type = 'chat' AND (i.firm IS NULL OR c.firm_number_id = i.firm)
          AND c.status IN ('pending', 'failed') AND NOT c.metadata ? 'chat_msg_id'
          AND coalesce((c.metadata->>'${PROVIDER_CALL_AT}')::timestamptz, c.created_at)
              BETWEEN i.arrived - interval '${ADOPT_WINDOW}' AND i.arrived
       ), single AS (
         SELECT o.chat_msg_id, o.id FROM owners o JOIN ids i ON i.chat_msg_id = o.chat_msg_id
         WHERE i.went AND i.dated AND o.status = 'pending' AND o.outcome = 'unknown'
           AND o.call_at < i.arrived
           AND i.stamped >= o.call_at - interval '${PROVIDER_CLOCK_SLACK}'
           AND (SELECT count(*) FROM owners q WHERE q.chat_msg_id = o.chat_msg_id) = 1
           AND (SELECT count(*) FROM owners q WHERE q.id = o.id) = 1
           -- A reaction to that number whose call had begun by then and whose id is not known (in
           -- flight, or its answer lost) could own it too (react-to-message.ts).
           AND NOT EXISTS (
             SELECT 1 FROM communications f
             CROSS JOIN LATERAL jsonb_array_elements(f.metadata->'${FIRM_REACTION_CALLS}') AS rc(call)
             WHERE f.peer_phone = i.digits AND f.direction = 'inbound' AND f.metadata ? '${FIRM_REACTION_CALLS}'
               AND (rc.call->>'at')::timestamptz BETWEEN i.arrived - interval '${ADOPT_WINDOW}' AND i.arrived)
       )
       UPDATE communications c
       SET metadata = (c.metadata - 'outcome') || jsonb_build_object('chat_msg_id', s.chat_msg_id, 'reconciled', true),
           error = NULL, updated_at = now()
       FROM single s
       WHERE c.id = s.id AND c.status = 'pending' AND NOT c.metadata ? 'chat_msg_id'
       RETURNING c.id, s.chat_msg_id AS "chatMsgId"`,
      { bind: [numbers], type: QueryTypes.SELECT, transaction },
    );
    for (const row of adopted) {
      await recordAuditEvent(
        { actor: SYSTEM_ACTOR, action: 'chat.reconciled', subject: `communication:${row.id}`, detail: { chatMsgId: row.chatMsgId } },
        transaction,
      );
    }
    return adopted.map((row) => row.chatMsgId);
  });
}

/**
 * Sends just marked of unknown outcome whose receipts came while their call was in flight (they
 * wait in chat_receipts under an id no record has): the same rule as for a receipt arriving now
 * decides whether a send takes one, then the kept receipts apply.
 */
export async function adoptKeptReceipts(recordIds: number[]): Promise<void> {
  if (recordIds.length === 0) return;
  const numbers = await db().query<{ digits: string }>(
    `SELECT DISTINCT peer_phone AS digits FROM communications WHERE id = ANY($1::int[]) AND peer_phone IS NOT NULL`,
    { bind: [recordIds], type: QueryTypes.SELECT },
  );
  const adopted = await adoptUnknownOutcomeSends(numbers.map((n) => n.digits));
  await applyKeptReceipts(adopted);
}

export const RELEASED_ADOPTION_ERROR = `${UNKNOWN_OUTCOME_PREFIX} the provider's answer to this send was lost, and the receipt first matched to it turned out to be a message sent from the firm's phone. Check with them before sending it again.`;

/**
 * An echo (a message sent from the firm's phone app) whose id a send of unknown outcome adopted:
 * the receipt was the phone's message, not the send's. The send gives the id back and is of unknown
 * outcome again, so the echo is stored as the record it is (nothing of it is lost). Called just
 * before the batch that stores the echo; `transaction` when a caller has one to join.
 */
export async function releaseAdoptedIds(echoIds: string[], transaction?: Transaction): Promise<number[]> {
  if (echoIds.length === 0) return [];
  const released = await queryRows<{ id: number; chatMsgId: string }>(
    sql`WITH released AS (
       SELECT id, metadata->>'chat_msg_id' AS chat_msg_id FROM communications
       WHERE metadata->>'chat_msg_id' = ANY(${echoIds}::text[]) AND direction = 'outbound' AND metadata ? 'reconciled'
       FOR UPDATE
     ), changed AS (
       UPDATE communications c
       SET metadata = (c.metadata - 'chat_msg_id' - 'reconciled') || '{"outcome":"unknown"}'::jsonb,
           status = 'pending', error = ${RELEASED_ADOPTION_ERROR}, receipts = '{}'::jsonb, updated_at = now()
       FROM released r WHERE c.id = r.id
       RETURNING c.id, r.chat_msg_id
     ), ${announcedCte(sql`changed`)}
     SELECT id, chat_msg_id AS "chatMsgId" FROM changed`,
    { transaction },
  );
  for (const row of released) {
    await recordAuditEvent(
      {
        actor: SYSTEM_ACTOR,
        action: 'chat.reconciled',
        subject: `communication:${row.id}`,
        detail: { chatMsgId: row.chatMsgId, undone: "the id was a message sent from the firm's phone" },
      },
      transaction,
    );
  }
  return released.map((r) => r.id);
}

/**
 * Stores the provider id on an outbound record that the provider accepted (pending → sent) and
 * applies the receipts that arrived before this moment (the provider can report before its own
 * send response has been saved). Returns the record's resulting status.
 */
export async function recordProviderMessageId(communicationId: number, chatMsgId: string): Promise<string> {
  const [stored] = await db().query<{ status: string }>(
    `UPDATE communications
     SET metadata = (metadata - 'outcome') || jsonb_build_object('chat_msg_id', $2::text),
         status = CASE WHEN status = 'pending' THEN 'sent' ELSE status END,
         error = CASE WHEN status = 'pending' THEN NULL ELSE error END,
         updated_at = now()
     WHERE id = $1
     RETURNING status`,
    { bind: [communicationId, chatMsgId], type: QueryTypes.SELECT },
  );
  // Only an early receipt can have moved the status since: re-read just then.
  if ((await applyKeptReceipts([chatMsgId])) === 0) return stored?.status ?? 'sent';
  const [row] = await db().query<{ status: string }>('SELECT status FROM communications WHERE id = $1', {
    bind: [communicationId],
    type: QueryTypes.SELECT,
  });
  return row?.status ?? 'sent';
}
