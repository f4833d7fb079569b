import { createHmac, randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import type { TSessionMethod } from '../../shared/session-methods';
import { Session, User } from '../core/db/models/index';
import { queryRows, sql } from '../core/sql';

export const SESSION_COOKIE = 'firm_chat_session';
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How stale `last_seen_at` may get: refreshed at most once a minute, not written on every request. */
export const LAST_SEEN_EVERY_MS = 60_000;
/** A user agent is kept for a person to recognise their device, no longer than this (the column's CHECK). */
export const USER_AGENT_MAX = 400;

/** Where and how a session began, shown to its person in Settings. */
export type TSessionOrigin = { ip: string | null; userAgent: string | null; method: TSessionMethod };

// The cookie carries a random token; the table stores only its keyed hash.
export function toSessionId(token: string, secret: string): string {
  return createHmac('sha256', secret).update(token).digest('hex');
}

/** The stored key of the session a request uses (null: it has none), to tell it apart in a list. */
export function sessionKeyOf(token: string | null, secret: string): string | null {
  return token ? toSessionId(token, secret) : null;
}

export async function createSession(
  userId: number,
  secret: string,
  now: Date,
  origin: TSessionOrigin = { ip: null, userAgent: null, method: 'password' },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await Session.create({
    id: toSessionId(token, secret),
    userId,
    expiresAt,
    lastSeenAt: now,
    ip: origin.ip,
    userAgent: origin.userAgent === null ? null : origin.userAgent.slice(0, USER_AGENT_MAX),
    method: origin.method,
  });
  // Housekeeping: expired rows are useless; dropping them here needs no scheduler.
  await Session.destroy({ where: { expiresAt: { [Op.lt]: now } } });
  return { token, expiresAt };
}

export async function findSessionUser(token: string, secret: string, now: Date): Promise<User | null> {
  const session = await Session.findByPk(toSessionId(token, secret));
  if (!session || session.expiresAt <= now) return null;
  const user = await User.findByPk(session.userId);
  // Deactivation deletes the user's sessions; this also refuses one a sign-in created while it ran.
  if (!user || user.deactivatedAt) return null;
  // One guarded UPDATE a minute at most per session: the list in Settings needs "last active", not a write per request.
  if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_EVERY_MS) {
    await queryRows(
      sql`UPDATE sessions SET last_seen_at = ${now} WHERE id = ${session.id} AND last_seen_at <= ${new Date(now.getTime() - LAST_SEEN_EVERY_MS)}`,
    );
  }
  return user;
}

export async function deleteSession(token: string, secret: string): Promise<void> {
  await Session.destroy({ where: { id: toSessionId(token, secret) } });
}
