import { createHash, randomBytes } from 'node:crypto';
import type { TSecondFactorMethod } from '../../shared/session-methods';
import { queryRows, sql } from '../core/sql';
import { hasPasskeySql, hasTotpSql } from './second-factor-sql';

// The first step of a two-step sign-in (a password, or single sign-on) hands out a ticket, not a
// session: random, stored only as its hash, good for 5 minutes and at most 5 answers, taken by the
// answer that completes the sign-in (server/auth/README.md "Two-step sign-in").
export const TICKET_TTL_MS = 5 * 60 * 1000;
export const TICKET_MAX_ANSWERS = 5;

export type TFirstMethod = 'password' | 'oidc';
export type { TSecondFactorMethod };

const ticketId = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/** How many passkeys a person has. */
export async function countPasskeys(userId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(sql`SELECT count(*)::int AS n FROM passkeys WHERE user_id = ${userId}`);
  return row?.n ?? 0;
}

/** What second steps a person has: 'totp' once confirmed, 'passkey' for any passkey, 'recovery_code' while any is left. */
export async function secondFactorMethodsOf(userId: number): Promise<TSecondFactorMethod[]> {
  const [row] = await queryRows<{ totp: boolean; passkey: boolean; recovery: boolean }>(
    sql`SELECT ${hasTotpSql(userId)} AS totp, ${hasPasskeySql(userId)} AS passkey,
               EXISTS (SELECT 1 FROM recovery_codes WHERE user_id = ${userId} AND used_at IS NULL) AS recovery`,
  );
  const methods: TSecondFactorMethod[] = [];
  if (row?.totp) methods.push('totp');
  if (row?.passkey) methods.push('passkey');
  if (row?.recovery) methods.push('recovery_code');
  return methods;
}

/**
 * A ticket for the second step, or null when the person has no second factor (the caller then makes
 * a session as before). Recovery codes alone do not ask for one: they stand in for a factor.
 */
export async function issueSignInTicket(
  userId: number,
  firstMethod: TFirstMethod,
  now: Date,
): Promise<{ ticket: string; methods: TSecondFactorMethod[] } | null> {
  const methods = await secondFactorMethodsOf(userId);
  if (!methods.includes('totp') && !methods.includes('passkey')) return null;
  const ticket = randomBytes(32).toString('base64url');
  await queryRows(
    sql`INSERT INTO sign_in_tickets (id, user_id, first_method, expires_at)
        VALUES (${ticketId(ticket)}, ${userId}, ${firstMethod}, ${new Date(now.getTime() + TICKET_TTL_MS)})`,
  );
  // Housekeeping, as sessions do theirs: dead tickets are useless.
  await queryRows(sql`DELETE FROM sign_in_tickets WHERE expires_at < ${now}`);
  return { ticket, methods };
}

/**
 * Counts one answer against a live ticket *before* it is checked (parallel answers cannot all pass a
 * check made before any was counted) and says whose it is; null: unknown, expired, used or out of answers.
 */
export async function claimTicketAnswer(ticket: string, now: Date): Promise<{ userId: number; firstMethod: TFirstMethod } | null> {
  const [row] = await queryRows<{ userId: number; firstMethod: TFirstMethod }>(
    sql`UPDATE sign_in_tickets SET answers = answers + 1
        WHERE id = ${ticketId(ticket)} AND expires_at > ${now} AND answers < ${TICKET_MAX_ANSWERS}
        RETURNING user_id AS "userId", first_method AS "firstMethod"`,
  );
  return row ?? null;
}

/** Takes the ticket for the answer that completed it; false: another answer took it first. */
export async function takeTicket(ticket: string): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(sql`DELETE FROM sign_in_tickets WHERE id = ${ticketId(ticket)} RETURNING id`);
  return rows.length > 0;
}
