import { QueryTypes, type Sequelize } from 'sequelize';
import { UNKNOWN_OUTCOME_PREFIX } from '../../shared/provider-messages';
import { PROVIDER_TIMEOUT_MS } from '../provider/provider-client';

export const INTERRUPTED_SEND_ERROR = `${UNKNOWN_OUTCOME_PREFIX} the server stopped while sending this message, so it may or may not have reached the recipient. Check with them before resending.`;

/**
 * A record left `pending` longer than a send can take was being sent when a server stopped: the
 * provider may or may not have it. It is marked failed with an "unknown" explanation (so Retry is
 * offered, as a person's decision) rather than left with a clock forever. Younger pending records
 * may belong to another instance's send in flight, and are left alone.
 */
export async function markInterruptedSends(sequelize: Sequelize, graceMs = PROVIDER_TIMEOUT_MS + 5_000): Promise<number[]> {
  const rows = await sequelize.query<{ id: number }>(
    `UPDATE communications SET status = 'failed', error = $1, updated_at = now()
     WHERE direction = 'outbound' AND status = 'pending' AND created_at < now() - make_interval(secs => $2)
     RETURNING id`,
    { bind: [INTERRUPTED_SEND_ERROR, graceMs / 1000], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}
