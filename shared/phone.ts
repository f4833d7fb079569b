// Phone helpers shared by server and client. Numbers are stored as digits only
// (international format, no "+"), which is also what the provider's `to` wants.

const SEPARATORS = /[\s\-().\u00a0]/g;

export const PHONE_MIN_DIGITS = 8;
export const PHONE_MAX_DIGITS = 15;
export const PHONE_MATCH_DIGITS = 9;

/**
 * Strips spaces, dashes, dots and brackets, a leading "+" and then a leading international "00"
 * ("+0033…" too), so that a number written either way is stored and looked up as one.
 */
export function normalizePhoneDigits(input: string): string {
  return input.trim().replace(SEPARATORS, '').replace(/^\+/, '').replace(/^00/, '');
}

/** Digits of a valid international number (8–15 digits), or null. */
export function parsePhoneDigits(input: string): string | null {
  const digits = normalizePhoneDigits(input);
  if (!/^\d+$/.test(digits)) return null;
  if (digits.length < PHONE_MIN_DIGITS || digits.length > PHONE_MAX_DIGITS) return null;
  return digits;
}

/** The last 9 digits, the key inbound messages are matched to clients by (server/decisions/0009-inbound-matching-by-last-9-digits.md). */
export function toMatchKey(input: string): string {
  return input.replace(/\D/g, '').slice(-PHONE_MATCH_DIGITS);
}

/**
 * The numbers a client's conversation may reply to, and the default. Own numbers, plus numbers that
 * wrote on the file and match one of them by the last 9 digits (the inbound match); a number that
 * wrote but is no longer on file (removed, or unlinked) is not offered. Default: the number of the
 * newest inbound message that is one of the client's own numbers (a number a person gave or linked),
 * else the first own number (the primary). A number that matched only by its last 9 digits is
 * offered but never chosen by default: it may be a stranger's.
 */
export function replyNumbersOf(own: string[], inboundNewestFirst: string[]): { numbers: string[]; defaultNumber: string | null } {
  const ownKeys = new Set(own.map(toMatchKey));
  const wrote = inboundNewestFirst.filter((digits) => ownKeys.has(toMatchKey(digits)));
  return { numbers: [...new Set([...own, ...wrote])], defaultNumber: wrote.find((digits) => own.includes(digits)) ?? own[0] ?? null };
}
