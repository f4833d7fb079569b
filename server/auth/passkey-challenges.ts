import { queryRows, sql } from '../core/sql';
import type { TPasskeyRp } from './passkey-rp';

/** How long a person has to answer the browser's passkey prompt. */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;

export type TChallengePurpose = 'register' | 'authenticate';

/** A challenge as issued: for whom (null: anyone, a passkey-only sign-in) and for which site. */
export type TIssuedChallenge = { userId: number | null; rp: TPasskeyRp };

/** Stores a challenge the browser will sign; expired ones are swept here, needing no scheduler. */
export async function storeChallenge(challenge: string, purpose: TChallengePurpose, issued: TIssuedChallenge, now: Date): Promise<void> {
  await queryRows(sql`DELETE FROM passkey_challenges WHERE expires_at <= ${now}`);
  await queryRows(
    sql`INSERT INTO passkey_challenges (challenge, purpose, user_id, rp_id, origin, expires_at)
        VALUES (${challenge}, ${purpose}, ${issued.userId}, ${issued.rp.rpId}, ${issued.rp.origin},
                ${new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_MS)})`,
  );
}

/**
 * Takes a challenge for one use: deleted as it is read, so a second answer with it finds nothing,
 * on this instance or another. Null: never issued, issued for something else, used, or expired.
 */
export async function takeChallenge(challenge: string, purpose: TChallengePurpose, now: Date): Promise<TIssuedChallenge | null> {
  const [row] = await queryRows<{ userId: number | null; rpId: string; origin: string; live: boolean }>(
    sql`DELETE FROM passkey_challenges WHERE challenge = ${challenge} AND purpose = ${purpose}
        RETURNING user_id AS "userId", rp_id AS "rpId", origin, expires_at > ${now} AS live`,
  );
  if (!row?.live) return null;
  return { userId: row.userId, rp: { rpId: row.rpId, origin: row.origin, rpName: '' } };
}

/** The challenge a browser's answer signed (its clientDataJSON's), or null when it cannot be read. */
export function challengeOfClientData(clientDataJSON: string): string | null {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 200 ? challenge : null;
  } catch {
    return null;
  }
}
