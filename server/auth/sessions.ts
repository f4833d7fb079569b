import { createHmac, randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import { DEFAULT_SECURITY_POLICY, policyCovers, type TRequireMfa } from '../../shared/security-policy';
import { SECOND_FACTOR_METHODS, type TSessionMethod } from '../../shared/session-methods';
import type { TSecondFactorState } from '../core/session-user';
import { Session, User } from '../core/db/models/index';
import { queryRows, sql } from '../core/sql';
import { hasPasskeySql, hasTotpSql } from './second-factor-sql';

export const SESSION_COOKIE = 'firm_chat_session';
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How stale `last_seen_at` may get: refreshed at most once a minute, not written on every request. */
export const LAST_SEEN_EVERY_MS = 60_000;
/** A user agent is kept for a person to recognise their device, no longer than this (the column's CHECK). */
export const USER_AGENT_MAX = 400;

/**
 * Where and how a session began, shown to its person in Settings. `secondFactor`: the sign-in proved
 * one though its method does not say so (single sign-on whose provider asked for one).
 */
export type TSessionOrigin = { ip: string | null; userAgent: string | null; method: TSessionMethod; secondFactor?: boolean };

const provesSecondFactor = (origin: TSessionOrigin) =>
  origin.secondFactor === true || (SECOND_FACTOR_METHODS as readonly string[]).includes(origin.method);

/** An IPv4 address as people write it: a dual-stack server sees `::ffff:192.0.2.1` for `192.0.2.1`. */
export const plainAddress = (ip: string) => ip.replace(/^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i, '$1');

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
    ip: origin.ip === null ? null : plainAddress(origin.ip),
    userAgent: origin.userAgent === null ? null : origin.userAgent.slice(0, USER_AGENT_MAX),
    method: origin.method,
    // When a second factor was last proven on this session: what a step-up asks (server/auth/README.md "Step-up and the firm's policy").
    secondFactorAt: provesSecondFactor(origin) ? now : null,
  });
  // Housekeeping: expired rows are useless; dropping them here needs no scheduler.
  await Session.destroy({ where: { expiresAt: { [Op.lt]: now } } });
  return { token, expiresAt };
}

/**
 * Whether session `s` is still in force at `now`, with the firm's policy joined as `p`
 * (`LEFT JOIN security_policy p ON true`): unexpired, used within the idle limit, and younger than
 * the absolute limit. One rule for the check on every request and for the lists people see.
 */
export const sessionInForce = (now: Date) => sql`s.expires_at > ${now}
  AND s.last_seen_at + make_interval(mins => coalesce(p.session_idle_minutes, ${DEFAULT_SECURITY_POLICY.sessionIdleMinutes})) > ${now}
  AND s.created_at + make_interval(hours => coalesce(p.session_max_hours, ${DEFAULT_SECURITY_POLICY.sessionMaxHours})) > ${now}`;

/** A session's person and their second factor, as every request needs them. */
export type TSessionState = { user: User; secondFactor: TSecondFactorState };

export async function findSessionState(token: string, secret: string, now: Date): Promise<TSessionState | null> {
  // The second factor and the policy come with the session's row: enrol-first and step-up cost no extra query.
  const [session] = await queryRows<{
    id: string;
    userId: number;
    lastSeenAt: Date;
    provenAt: Date | null;
    has: boolean;
    requireMfa: TRequireMfa;
  }>(
    sql`SELECT s.id, s.user_id AS "userId", s.last_seen_at AS "lastSeenAt", s.second_factor_at AS "provenAt",
          coalesce(p.require_mfa, ${DEFAULT_SECURITY_POLICY.requireMfa}) AS "requireMfa",
          (${hasTotpSql(sql`s.user_id`)} OR ${hasPasskeySql(sql`s.user_id`)}) AS has
        FROM sessions s LEFT JOIN security_policy p ON true
        WHERE s.id = ${toSessionId(token, secret)} AND ${sessionInForce(now)}`,
  );
  if (!session) return null;
  const user = await User.findByPk(session.userId);
  // Deactivation deletes the user's sessions; this also refuses one a sign-in created while it ran.
  if (!user || user.deactivatedAt) return null;
  // One guarded UPDATE a minute at most per session: the list in Settings needs "last active", not a write per request.
  if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_EVERY_MS) {
    await queryRows(
      sql`UPDATE sessions SET last_seen_at = ${now} WHERE id = ${session.id} AND last_seen_at <= ${new Date(now.getTime() - LAST_SEEN_EVERY_MS)}`,
    );
  }
  const { has, provenAt, requireMfa } = session;
  return { user, secondFactor: { has, provenAt, mustEnrol: policyCovers(requireMfa, user.role) && !has } };
}

export async function findSessionUser(token: string, secret: string, now: Date): Promise<User | null> {
  return (await findSessionState(token, secret, now))?.user ?? null;
}

/** Marks the session as having proven its second factor at `now` (a step-up, or a factor just set up). */
export async function markSecondFactorProven(token: string | null, secret: string, now: Date): Promise<void> {
  if (token) await queryRows(sql`UPDATE sessions SET second_factor_at = ${now} WHERE id = ${toSessionId(token, secret)}`);
}

export async function deleteSession(token: string, secret: string): Promise<void> {
  await Session.destroy({ where: { id: toSessionId(token, secret) } });
}
