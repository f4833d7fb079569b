import { sql, type Sql } from '../core/sql';

// The rule of server/messaging/README.md "Business hours", as SQL, so that every instance decides it the same way from
// the one row, inside the statement that needs it (no clock but PostgreSQL's, no cached hours).

/** SQL: the firm's wall-clock time at `at` (a timestamptz expression), in the row's time zone. */
const localTime = (row: Sql, at: Sql): Sql => sql`(${at} AT TIME ZONE ${row}.time_zone)`;

/**
 * SQL: whether the `business_hours` row `row` (an alias, as sql`b`) has the firm open at `at` (a
 * timestamptz expression; default now()): the local date is not one of its closed dates, and one of
 * its openings is on the local ISO day (Monday 1) with the local time from `opens` up to, not
 * including, `closes`. An empty week is never open.
 */
export function openAt(row: Sql, at: Sql = sql`now()`): Sql {
  const local = localTime(row, at);
  return sql`(NOT (${local}::date = ANY (${row}.closed_dates))
    AND EXISTS (SELECT 1 FROM jsonb_array_elements(${row}.week) opening
                WHERE (opening->>'day')::int = extract(isodow FROM ${local})::int
                  AND ${local}::time >= (opening->>'opens')::time
                  AND ${local}::time < (opening->>'closes')::time))`;
}

/**
 * SQL: whether the out-of-hours reply of the `business_hours` row `row` is due at `at`: a reply is
 * set, hours are set (an empty week is "no hours", not "always closed"), and the firm is not open.
 */
export function outOfHoursReply(row: Sql, at: Sql = sql`now()`): Sql {
  return sql`(${row}.auto_reply IS NOT NULL AND jsonb_array_length(${row}.week) > 0 AND NOT ${openAt(row, at)})`;
}
