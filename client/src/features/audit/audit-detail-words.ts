import { formatDateTime, formatPhone } from '../../lib/format';

// The small word-makers every audit sentence uses.

export const numberWords = new Intl.NumberFormat('en-GB');
/** "1 message", "1,234 messages". */
export const plural = (n: number, one: string, many = `${one}s`) => `${numberWords.format(n)} ${n === 1 ? one : many}`;
/** "a, b and c". */
export const listed = (parts: string[]) => (parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`);
/** "Amelia Hart's", "James's". */
export const possessive = (name: string) => `${name}’s`;
/** A number as a person reads it, or "a number" when the detail has none. */
export const phone = (digits: string | null | undefined) => (digits ? formatPhone(`+${digits.replace(/^\+/, '')}`) : 'a number');
const SHORT_HASH = 12;
export const shortHash = (hash: string) => `${hash.slice(0, SHORT_HASH)}…`;
/** An instant in the reader's format; null when there is none or it is no date. */
export const dateOf = (value: string | null | undefined): string | null => {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : formatDateTime(date);
};
const ROLE_WORD: Record<string, string> = { director: 'a director', staff: 'staff' };
export const role = (value: string | null | undefined) => (value ? (ROLE_WORD[value] ?? value) : 'another role');
