import { QueryTypes } from 'sequelize';
import { UNKNOWN_OUTCOME_PREFIX } from '../../shared/provider-messages';
import { db } from '../core/db/db';

export const INTERRUPTED_SEND_ERROR = `${UNKNOWN_OUTCOME_PREFIX} the server stopped while sending this message, so it may or may not have reached the recipient. It shows as sent if the provider reports it; check with them before sending it again.`;

/** A send in flight renews its lease every 30 s; one untouched this long has no live owner. */
export const ABANDONED_SEND_MS = 2 * 60_000;
/** How often every instance looks for abandoned sends (server/messaging/README.md "Sending messages", Unknown outcome). */
export const SWEEP_SENDS_EVERY_MS = 60_000;

/**
 * Marks records as of unknown outcome: still `pending` (the provider may have the message), with
 * `metadata.outcome = 'unknown'` and the explanation in `error`. Only records with no provider id
 * yet: one whose id was written was accepted, and its receipts tell the rest.
 */
export async function markOutcomeUnknown(ids: number[], explanation: string): Promise<number[]> {
  const rows = await db().query<{ id: number }>(
    `UPDATE communications SET metadata = metadata || '{"outcome":"unknown"}'::jsonb, error = $2, updated_at = now()
     WHERE id = ANY($1::int[]) AND direction = 'outbound' AND status = 'pending' AND NOT metadata ? 'chat_msg_id'
     RETURNING id`,
    { bind: [ids, explanation], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}

/**
 * A record left `pending` and untouched for two minutes lost its sender (a stop, a crash, a
 * database that never came back for its id): the provider may or may not have the message. It is
 * marked as of unknown outcome rather than left with a clock for ever; a receipt for it adopts it,
 * and a Retry asks for confirmation. One idempotent statement: every instance may run it.
 */
export async function markInterruptedSends(abandonedMs = ABANDONED_SEND_MS): Promise<number[]> {
  const rows = await db().query<{ id: number }>(
    `UPDATE communications SET metadata = metadata || '{"outcome":"unknown"}'::jsonb, error = $1, updated_at = now()
     WHERE direction = 'outbound' AND status = 'pending' AND NOT metadata ? 'outcome' AND NOT metadata ? 'chat_msg_id'
       AND updated_at < now() - make_interval(secs => $2)
     RETURNING id`,
    { bind: [INTERRUPTED_SEND_ERROR, abandonedMs / 1000], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}
