import { createHmac, randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import { Session, User } from '../core/db/models/index';

export const SESSION_COOKIE = 'firm_chat_session';
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

// The cookie carries a random token; the table stores only its keyed hash.
export function toSessionId(token: string, secret: string): string {
  return createHmac('sha256', secret).update(token).digest('hex');
}

export async function createSession(userId: number, secret: string, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await Session.create({ id: toSessionId(token, secret), userId, expiresAt });
  // Housekeeping: expired rows are useless; dropping them here needs no scheduler.
  await Session.destroy({ where: { expiresAt: { [Op.lt]: now } } });
  return { token, expiresAt };
}

export async function findSessionUser(token: string, secret: string, now: Date): Promise<User | null> {
  const session = await Session.findByPk(toSessionId(token, secret));
  if (!session || session.expiresAt <= now) return null;
  const user = await User.findByPk(session.userId);
  // Deactivation deletes the user's sessions; this also refuses one a sign-in created while it ran.
  return user && !user.deactivatedAt ? user : null;
}

export async function deleteSession(token: string, secret: string): Promise<void> {
  await Session.destroy({ where: { id: toSessionId(token, secret) } });
}
