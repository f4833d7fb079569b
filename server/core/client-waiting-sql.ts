import { sql, type Sql } from './sql';

/**
 * SQL: whether the client is waiting for the firm, read from a conversation's last record `l` (an
 * alias of communications, as sql`l`): they wrote last, or the last record is the firm's automatic
 * reply outside business hours (server/messaging/README.md "Business hours"), which answers no one's question: a person
 * still has to. A message imported from a phone's export (server/imports/README.md "History from the phone") is history:
 * nobody waits on it. Awaiting reply, Overdue, the overdue notice and Workload all ask this.
 */
export const clientWaiting = (l: Sql): Sql =>
  sql`((${l}.direction = 'inbound' AND ${l}.status IS DISTINCT FROM 'imported') OR ${l}.metadata ? 'auto_reply')`;
