import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import { announceNotifications } from '../notifications';
import { announceScheduledChange } from './announce-scheduled-change';

/** A due send that will not go: why, and whether its author is told (a deactivated author is not). */
export type TRefusal = { id: number; reason: string; tell: boolean };

/**
 * Marks these sends `not_sent` with their reasons, and tells each author with a `scheduled_not_sent`
 * notification on the conversation, in one statement and one transaction. Only a row still
 * scheduled changes: one sent meanwhile (its record exists) or cancelled stays as it is, and its
 * author is told nothing. Returns how many changed.
 */
export async function markNotSent(refusals: TRefusal[]): Promise<number> {
  if (refusals.length === 0) return 0;
  return db().transaction(async (transaction) => {
    const [row] = await db().query<{ refused: number; told: number[] | null }>(
      `WITH refused AS (
         UPDATE scheduled_sends s SET state = 'not_sent', reason = r.reason, leased_until = NULL, updated_at = now()
         FROM unnest($1::bigint[], $2::text[], $3::boolean[]) AS r(id, reason, tell)
         WHERE s.id = r.id AND s.state = 'scheduled'
         RETURNING s.id, s.created_by, s.client_id, s.to_digits, r.tell),
       told AS (
         INSERT INTO notifications (user_id, kind, thread_key, scheduled_send_id)
         SELECT created_by, 'scheduled_not_sent',
                CASE WHEN client_id IS NOT NULL THEN 'client-' || client_id ELSE 'phone-' || to_digits END, id
         FROM refused WHERE created_by IS NOT NULL AND tell
         RETURNING user_id)
       SELECT (SELECT count(*) FROM refused)::int AS refused, (SELECT array_agg(DISTINCT user_id) FROM told) AS told`,
      {
        bind: [refusals.map((r) => r.id), refusals.map((r) => r.reason), refusals.map((r) => r.tell)],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    if (row!.refused > 0) await announceScheduledChange(transaction);
    await announceNotifications(row!.told ?? [], transaction);
    return row!.refused;
  });
}
