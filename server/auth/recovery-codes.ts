import { randomInt } from 'node:crypto';
import { queryRows, sql, type TRunOptions } from '../core/sql';
import type { TSecondFactorKeys } from './second-factor-keys';

// Ten single-use codes for a lost phone, shown once and kept only as keyed hashes
// (second-factor-keys.ts). 10 characters of 31 letters and digits without look-alikes (49 bits),
// written xxxxx-xxxxx; typed in any case, with or without the dash or spaces.
export const RECOVERY_CODE_COUNT = 10;
const LETTERS = 'abcdefghjkmnpqrstuvwxyz23456789';

function newCode(): string {
  const chars = Array.from({ length: 10 }, () => LETTERS[randomInt(LETTERS.length)]!).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A typed code as it was hashed: lower case, no dash or spaces. */
export const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]+/g, '');

/** A fresh set replacing any earlier one; the codes themselves, to show once. */
export async function replaceRecoveryCodes(userId: number, keys: TSecondFactorKeys, options: TRunOptions = {}): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await queryRows(sql`DELETE FROM recovery_codes WHERE user_id = ${userId}`, options);
  for (const code of codes) {
    await queryRows(
      sql`INSERT INTO recovery_codes (user_id, code_hash) VALUES (${userId}, ${keys.hashRecoveryCode(normaliseRecoveryCode(code))})`,
      options,
    );
  }
  return codes;
}

/** Uses one code: true when it was the person's and unused (marked used in the same statement, so it works once). */
export async function useRecoveryCode(userId: number, code: string, keys: TSecondFactorKeys, now: Date): Promise<boolean> {
  const rows = await queryRows<{ id: number }>(
    sql`UPDATE recovery_codes SET used_at = ${now}
        WHERE user_id = ${userId} AND code_hash = ${keys.hashRecoveryCode(normaliseRecoveryCode(code))} AND used_at IS NULL
        RETURNING id`,
  );
  return rows.length > 0;
}

export async function recoveryCodesLeft(userId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM recovery_codes WHERE user_id = ${userId} AND used_at IS NULL`,
  );
  return row?.n ?? 0;
}

export async function deleteRecoveryCodes(userId: number): Promise<void> {
  await queryRows(sql`DELETE FROM recovery_codes WHERE user_id = ${userId}`);
}
