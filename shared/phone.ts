// Phone helpers shared by server and client. Numbers are stored as digits only
// (international format, no "+"), which is also what the provider's `to` wants.

const SEPARATORS = /[\s\-().\u00a0]/g;

export const PHONE_MIN_DIGITS = 8;
export const PHONE_MAX_DIGITS = 15;
export const PHONE_MATCH_DIGITS = 9;

/** Strips "+", spaces, dashes, dots and brackets and a leading international "00". */
export function normalizePhoneDigits(input: string): string {
  let digits = input.trim().replace(SEPARATORS, '');
  if (digits.startsWith('+')) digits = digits.slice(1);
  else if (digits.startsWith('00')) digits = digits.slice(2);
  return digits;
}

/** Digits of a valid international number (8–15 digits), or null. */
export function parsePhoneDigits(input: string): string | null {
  const digits = normalizePhoneDigits(input);
  if (!/^\d+$/.test(digits)) return null;
  if (digits.length < PHONE_MIN_DIGITS || digits.length > PHONE_MAX_DIGITS) return null;
  return digits;
}

/** The last 9 digits, the key inbound messages are matched to clients by (SPEC §8). */
export function toMatchKey(input: string): string {
  return input.replace(/\D/g, '').slice(-PHONE_MATCH_DIGITS);
}

/**
 * The numbers a client's conversation may reply to, and the default. Own numbers, plus numbers that
 * wrote on the file and match one of them by the last 9 digits (the spec's match); a number that
 * wrote but is no longer on file (removed, or unlinked) is not offered. Default: the number of the
 * newest inbound message among those, else the first own number (the primary).
 */
export function replyNumbersOf(own: string[], inboundNewestFirst: string[]): { numbers: string[]; defaultNumber: string | null } {
  const ownKeys = new Set(own.map(toMatchKey));
  const wrote = inboundNewestFirst.filter((digits) => ownKeys.has(toMatchKey(digits)));
  return { numbers: [...new Set([...own, ...wrote])], defaultNumber: wrote[0] ?? own[0] ?? null };
}
