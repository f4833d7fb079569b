import { recordAuditEvent, type TActor } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import type { TPasskeyItem } from './passkey-registration';
import { endOtherSessions } from './manage-sessions';
import { endWatchedSessionIds } from './session-watch';

/** A person's passkeys, oldest first. */
export function listPasskeys(userId: number): Promise<TPasskeyItem[]> {
  return queryRows<TPasskeyItem>(
    sql`SELECT id, name, created_at AS "createdAt", last_used_at AS "lastUsedAt" FROM passkeys WHERE user_id = ${userId} ORDER BY created_at, id`,
  );
}

/**
 * Removes one of the caller's own passkeys (anyone else's, or one already gone, is NOT_FOUND alike)
 * and ends their other sessions: one made with the passkey must not outlive it. The session in use
 * stays, so the person is not signed out of the screen they removed it from.
 */
export async function removeOwnPasskey(
  input: { id: number; currentKey: string | null },
  actor: TActor & { userId: number },
): Promise<{ sessionsEnded: number }> {
  const { keys, sessionsEnded } = await db().transaction(async (transaction) => {
    const [removed] = await queryRows<{ name: string }>(
      sql`DELETE FROM passkeys WHERE id = ${input.id} AND user_id = ${actor.userId} RETURNING name`,
      { transaction },
    );
    if (!removed) throw new AppError('NOT_FOUND', 'That passkey is not one of yours, or it has already been removed.');
    const { keys, sessionsEnded } = await endOtherSessions(actor.userId, input.currentKey, transaction);
    await recordAuditEvent(
      {
        actor,
        action: 'auth.passkey_remove',
        subject: `user:${actor.userId}`,
        detail: { passkeyId: input.id, name: removed.name, sessionsEnded },
      },
      transaction,
    );
    return { keys, sessionsEnded };
  });
  endWatchedSessionIds(keys);
  return { sessionsEnded };
}
