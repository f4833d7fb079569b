import { sql, type Sql } from '../core/sql';

// The inbound matching rule (server/decisions/0009-inbound-matching-by-last-9-digits.md), in one
// place: exactly one client with that exact number is that client; otherwise the last 9 digits over
// every client's numbers, where exactly one client links and none or several match nobody (never
// guess: a wrong link files one client's messages on another's file). A family sharing one number
// is several clients: unlinked.

/** A scalar SQL expression giving that client's id, or NULL, for the phone digits `phone` (a column, or a value as sql`${digits}::text`). */
export const matchOneClient = (phone: Sql): Sql =>
  sql`coalesce(
    (SELECT CASE WHEN count(DISTINCT n.client_id) = 1 THEN min(n.client_id) END FROM client_numbers n WHERE n.digits = ${phone}),
    (SELECT CASE WHEN count(DISTINCT n.client_id) = 1 THEN min(n.client_id) END FROM client_numbers n WHERE n.last9 = right(${phone}, 9)))`;
