import { recordAuditEvent, type TActor } from '../audit';
import { db } from '../core/db/db';
import { User } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import { endOtherSessions } from './manage-sessions';
import { hashPassword, verifyPassword } from './password';
import { endWatchedSessionIds } from './session-watch';

const WRONG_CURRENT = 'Your current password is not right.';

/**
 * A person changes their own password: the current one checked (the caller counts the attempt first,
 * as a sign-in), the new one hashed, and every other session of theirs ended in the same transaction —
 * whoever knew the old password is signed out everywhere (server/auth/README.md "Sessions and the
 * firm's policy"). The session in use stays. Audited `auth.password_change` with how many ended.
 */
export async function changeOwnPassword(
  input: { currentPassword: string; newPassword: string; currentKey: string | null },
  actor: TActor & { userId: number },
): Promise<{ sessionsEnded: number }> {
  const user = await User.findByPk(actor.userId);
  if (!user || !(await verifyPassword(input.currentPassword, user.passwordHash))) {
    throw new AppError('INVALID_INPUT', WRONG_CURRENT, { currentPassword: [WRONG_CURRENT] });
  }
  const hash = await hashPassword(input.newPassword);
  const { keys, sessionsEnded } = await db().transaction(async (transaction) => {
    await queryRows(sql`UPDATE users SET password_hash = ${hash} WHERE id = ${user.id}`, { transaction });
    const ended = await endOtherSessions(user.id, input.currentKey, transaction);
    await recordAuditEvent(
      { actor, action: 'auth.password_change', subject: `user:${user.id}`, detail: { sessionsEnded: ended.sessionsEnded } },
      transaction,
    );
    return ended;
  });
  endWatchedSessionIds(keys);
  return { sessionsEnded };
}
