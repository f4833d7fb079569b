import { WINDOW_CLOSED_PREFIX } from '../../shared/provider-messages';
import { formatNumber } from '../core/phone-input';
import { sql, type Sql } from '../core/sql';

// The provider's 24-hour window (server/decisions/0010-24-hour-window-and-approved-templates.md),
// asked again when a scheduled text or file is due: it was open when the person scheduled it, and
// may have closed since. Sending would only end in a failed record; instead the send is kept as not
// sent, and its author is told to send an approved template. It is the number's own window: the
// last time that number wrote (by the provider's time, as the thread's window is kept), whoever's
// file the number is on.

/**
 * SQL: whether `digits` (an SQL expression: sql`l.to_digits`, or a value) wrote in the 24 hours (to
 * `firmNumber` when given: the window is per client number and firm number)
 * before `at` (default now), as far as what is stored tells. The provider's time is at most a day ahead of the time the record was
 * stored (later ones are dropped on the way in), so the index on (peer_phone, created_at) bounds the
 * look to the two days before `at`.
 */
export const windowOpen = (digits: Sql, at: Sql = sql`now()`, firmNumber?: Sql): Sql =>
  sql`EXISTS (SELECT 1 FROM communications w WHERE w.peer_phone = ${digits} AND w.created_at > ${at} - interval '48 hours'
     AND w.type = 'chat' AND w.direction = 'inbound' AND w.status IS DISTINCT FROM 'imported' AND coalesce(w.provider_timestamp, w.created_at) > ${at} - interval '24 hours'
     ${firmNumber ? sql`AND w.firm_number_id = ${firmNumber}` : sql``})`;

/** SQL: whether `digits` ever wrote (what the reason says when the window is closed). */
export const everWrote = (digits: Sql): Sql =>
  sql`EXISTS (SELECT 1 FROM communications e WHERE e.peer_phone = ${digits} AND e.type = 'chat' AND e.direction = 'inbound' AND e.status IS DISTINCT FROM 'imported')`;

/** Why free text did not go: in the words the thread recognises to offer a template (WINDOW_CLOSED_PREFIX). */
export function windowClosedReason(name: string | null, digits: string, everWrote: boolean): string {
  const who = name ?? formatNumber(digits);
  return everWrote
    ? `${WINDOW_CLOSED_PREFIX} ${who} last wrote: send an approved template instead.`
    : `${who} has not written from ${formatNumber(digits)}, so only an approved template can reach them: send one instead.`;
}
