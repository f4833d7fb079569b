import { generateSecret, generateURI, verify } from 'otplib';
import { z } from 'zod';
import { AppError } from '../core/errors';
import { empty, queryRows, sql } from '../core/sql';
import type { TSecondFactorKeys } from './second-factor-keys';

// Authenticator codes (RFC 6238: SHA-1, 6 digits, 30 s) with one step either side for a phone's
// clock. The seed is sealed at rest (second-factor-keys.ts); the last accepted step is kept so a code,
// once accepted, is refused after (server/auth/README.md "Two-step sign-in").

/** Six digits, as an authenticator app shows them (spaces allowed: some apps show "123 456"). */
export const ZTotpCode = z
  .string()
  .transform((code) => code.replace(/\s+/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'Enter the 6-digit code from your authenticator app'));

export const TOTP_ISSUER = 'Firm Chat';
const PERIOD_SECONDS = 30;

/** A started, unconfirmed seed: what the authenticator app is given. */
export async function startTotp(
  user: { id: number; email: string },
  keys: TSecondFactorKeys,
): Promise<{ secret: string; otpauthUrl: string }> {
  const secret = generateSecret();
  // A confirmed seed is kept until removed; starting again replaces only one not yet confirmed.
  const rows = await queryRows<{ userId: number }>(
    sql`INSERT INTO totp_factors (user_id, sealed_secret) VALUES (${user.id}, ${keys.seal(secret)})
        ON CONFLICT (user_id) DO UPDATE SET sealed_secret = EXCLUDED.sealed_secret, created_at = now(), last_time_step = NULL
        WHERE totp_factors.confirmed_at IS NULL
        RETURNING user_id AS "userId"`,
  );
  if (rows.length === 0) throw new AppError('CONFLICT', 'An authenticator app is already set up. Remove it first to set up another.');
  return { secret, otpauthUrl: generateURI({ issuer: TOTP_ISSUER, label: user.email, secret }) };
}

/** The time step a code is right for (the current one ±1), or null. */
async function matchingStep(secret: string, code: string, now: Date, after: number | null): Promise<number | null> {
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: PERIOD_SECONDS,
    ...(after === null ? {} : { afterTimeStep: after }),
  }).catch(() => ({ valid: false as const }));
  // The TOTP strategy's answer names the step it matched (otplib's type is shared with HOTP's).
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

export type TCodeCheck = 'accepted' | 'wrong' | 'replayed' | 'none';

/**
 * Checks a code against the person's seed (`confirmed`: the enrolled one; otherwise the one being
 * set up) and, when right, records its step in the same statement that checks no later one was, so
 * two requests carrying one code cannot both be accepted.
 */
export async function checkTotpCode(
  userId: number,
  code: string,
  keys: TSecondFactorKeys,
  now: Date,
  { confirmed }: { confirmed: boolean },
): Promise<TCodeCheck> {
  const [row] = await queryRows<{ sealed: string; lastStep: string | null }>(
    sql`SELECT sealed_secret AS sealed, last_time_step AS "lastStep" FROM totp_factors
        WHERE user_id = ${userId} AND (confirmed_at IS NOT NULL) = ${confirmed}`,
  );
  if (!row) return 'none';
  const secret = keys.open(row.sealed);
  const last = row.lastStep === null ? null : Number(row.lastStep);
  const step = await matchingStep(secret, code, now, last);
  if (step === null) return last !== null && (await matchingStep(secret, code, now, null)) !== null ? 'replayed' : 'wrong';
  const taken = await queryRows<{ userId: number }>(
    sql`UPDATE totp_factors SET last_time_step = ${step}
        ${confirmed ? empty : sql`, confirmed_at = ${now}`}
        WHERE user_id = ${userId} AND (confirmed_at IS NOT NULL) = ${confirmed}
          AND (last_time_step IS NULL OR last_time_step < ${step})
        RETURNING user_id AS "userId"`,
  );
  return taken.length > 0 ? 'accepted' : 'replayed';
}
