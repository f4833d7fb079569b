import type { Transaction } from 'sequelize';
import type { TSessionMethod } from '../../shared/session-methods';
import { recordAuditEvent, type TActor } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import { endWatchedSessionIds } from './session-watch';
import { sessionInForce } from './sessions';

/** A session as its person (or a director) sees it: named by its public id, never by its stored key. */
export type TSessionItem = {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  ip: string | null;
  userAgent: string | null;
  method: TSessionMethod;
  current: boolean;
};

type TSessionRow = Omit<TSessionItem, 'current'> & { key: string };

/**
 * A person's unexpired sessions, most recently active first. `currentKey` is the stored key of the
 * session this request uses (null: none of theirs), marked `current`.
 */
export async function listSessions(userId: number, currentKey: string | null, now: Date): Promise<TSessionItem[]> {
  const rows = await queryRows<TSessionRow>(
    sql`SELECT s.id AS key, s.public_id AS id, s.created_at AS "createdAt", s.last_seen_at AS "lastSeenAt", s.ip,
               s.user_agent AS "userAgent", s.method
        FROM sessions s LEFT JOIN security_policy p ON true
        WHERE s.user_id = ${userId} AND ${sessionInForce(now)}
        ORDER BY s.last_seen_at DESC, s.created_at DESC, s.public_id`,
  );
  return rows.map(({ key, ...row }) => ({ ...row, current: key === currentKey }));
}

/**
 * Ends one of the caller's own sessions. Anyone else's, or one that is gone, is NOT_FOUND alike: a
 * person learns nothing of sessions not theirs. Its live streams end here at once, on other
 * instances at their next check (session-watch.ts).
 */
export async function revokeOwnSession(
  input: { publicId: string; currentKey: string | null },
  actor: TActor & { userId: number },
): Promise<{ current: boolean }> {
  const ended = await db().transaction(async (transaction) => {
    const [row] = await queryRows<{ key: string; method: TSessionMethod }>(
      sql`DELETE FROM sessions WHERE public_id = ${input.publicId} AND user_id = ${actor.userId} RETURNING id AS key, method`,
      { transaction },
    );
    if (!row) throw new AppError('NOT_FOUND', 'That session is not one of yours, or it has already ended.');
    const current = row.key === input.currentKey;
    await recordAuditEvent(
      {
        actor,
        action: 'auth.session_revoked',
        subject: `user:${actor.userId}`,
        detail: { method: row.method, ...(current ? { current: true as const } : {}) },
      },
      transaction,
    );
    return { key: row.key, current };
  });
  endWatchedSessionIds([ended.key]);
  return { current: ended.current };
}

/**
 * Ends every session of a person but the one in use (`currentKey`), in the caller's transaction: a
 * password changed or a second factor removed must not leave a session someone else may hold. The
 * caller ends the keys' live streams once it commits (`endWatchedSessionIds`).
 */
export async function endOtherSessions(
  userId: number,
  currentKey: string | null,
  transaction: Transaction,
): Promise<{ keys: string[]; sessionsEnded: number }> {
  const ended = await queryRows<{ key: string; live: boolean }>(
    sql`DELETE FROM sessions WHERE user_id = ${userId} AND id IS DISTINCT FROM ${currentKey}
        RETURNING id AS key, expires_at > now() AS live`,
    { transaction },
  );
  return { keys: ended.map((row) => row.key), sessionsEnded: ended.filter((row) => row.live).length };
}

/**
 * A director ends every session of a person (themself included). It takes nobody across a wall, so
 * a screened director may do it, as they may deactivate someone (account-rules.ts).
 */
export async function endUserSessions(
  input: { userId: number; currentKey: string | null },
  actor: TActor,
): Promise<{ sessionsEnded: number; endedCurrent: boolean }> {
  const { keys, sessionsEnded } = await db().transaction(async (transaction) => {
    const [user] = await queryRows<{ id: number }>(sql`SELECT id FROM users WHERE id = ${input.userId}`, { transaction });
    if (!user) throw new AppError('NOT_FOUND', 'That user does not exist.');
    // Expired rows go too, but only sessions someone could still use are counted.
    const rows = await queryRows<{ key: string; live: boolean }>(
      sql`DELETE FROM sessions WHERE user_id = ${user.id} RETURNING id AS key, expires_at > now() AS live`,
      { transaction },
    );
    const sessionsEnded = rows.filter((row) => row.live).length;
    await recordAuditEvent({ actor, action: 'user.sessions_ended', subject: `user:${user.id}`, detail: { sessionsEnded } }, transaction);
    return { keys: rows.map((row) => row.key), sessionsEnded };
  });
  endWatchedSessionIds(keys);
  return { sessionsEnded, endedCurrent: input.currentKey !== null && keys.includes(input.currentKey) };
}
