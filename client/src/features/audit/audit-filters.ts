import { ACTION_LABEL, type TAuditAction } from './audit-actions';

/** The trail's filters as the address keeps them (`/audit?subject=client:12&hash=ab12cd`), so a link can open the trail filtered. */
export type TAuditFilters = {
  action?: TAuditAction;
  userId?: number;
  /** `client:12`, `case:3`, `user:4`, `communication:99`: one subject (a client's takes in its cases). */
  subject?: string;
  /** A hash prefix, lower-case hex, 6 characters or more. */
  hash?: string;
  /** Start the list at this event and go back from it (a broken link's event). */
  from?: number;
};

export const SUBJECT_PATTERN = /^(client|case|user|communication):\d{1,9}$/;
export const HASH_PREFIX_PATTERN = /^[0-9a-f]{6,64}$/;

const wholeNumber = (value: string | null) => (value && /^\d{1,10}$/.test(value) && Number(value) > 0 ? Number(value) : undefined);

/** Reads the filters from a query string; anything malformed is left out rather than sent to be refused. */
export function readAuditFilters(search: string): TAuditFilters {
  const params = new URLSearchParams(search);
  const action = params.get('action');
  const subject = params.get('subject');
  const hash = params.get('hash')?.trim().toLowerCase() ?? null;
  return {
    ...(action && action in ACTION_LABEL ? { action: action as TAuditAction } : {}),
    ...(wholeNumber(params.get('user')) ? { userId: wholeNumber(params.get('user')) } : {}),
    ...(subject && SUBJECT_PATTERN.test(subject) ? { subject } : {}),
    ...(hash && HASH_PREFIX_PATTERN.test(hash) ? { hash } : {}),
    ...(wholeNumber(params.get('from')) ? { from: wholeNumber(params.get('from')) } : {}),
  };
}

/** The query string for `filters` ('' when there are none). */
export function writeAuditFilters(filters: TAuditFilters): string {
  const params = new URLSearchParams();
  if (filters.action) params.set('action', filters.action);
  if (filters.userId) params.set('user', String(filters.userId));
  if (filters.subject) params.set('subject', filters.subject);
  if (filters.hash) params.set('hash', filters.hash);
  if (filters.from) params.set('from', String(filters.from));
  const query = params.toString();
  return query ? `?${query}` : '';
}

/**
 * What a person typed in the hash field, as a prefix to look for: spaces and a leading "sha256:"
 * or ellipsis (copied from a screen) dropped, lower-cased. Null when it is not one.
 */
export function readHashPrefix(typed: string): string | null {
  const cleaned = typed
    .trim()
    .toLowerCase()
    .replace(/^sha-?256[:\s]*/, '')
    .replace(/[\s…]+/g, '');
  return HASH_PREFIX_PATTERN.test(cleaned) ? cleaned : null;
}
