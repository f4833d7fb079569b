import type { Transaction } from 'sequelize';
import { AppError } from '../core/errors';
import { queryRows, sql, type Sql } from '../core/sql';
import { windowOpen } from './reply-window';

// "Don't send if they reply first" (server/messaging/README.md "Scheduled sends"): a follow-up that is not sent when the
// client wrote after it was scheduled. "After it was scheduled" is after the row's created_at (a
// reschedule or an edit does not start it again), by when the client wrote (the message's own time); "the client" is the conversation the send belongs
// to: any message on the client's record, or from the number it goes to (unlinked, say, because
// two clients share it).

/** The reason kept on the row and told to its author. */
export const CLIENT_REPLIED = 'The client replied after it was scheduled.';

/**
 * SQL: whether the leased row `row` (a scheduled_sends alias, as sql`l`) waits for no reply and the client
 * wrote after it was scheduled (a message stored after its created_at). Two EXISTS, one per index
 * (client, time) and (number, time).
 */
export const clientReplied = (row: Sql): Sql =>
  sql`(${row}.unless_replied AND (
     EXISTS (SELECT 1 FROM communications r WHERE r.client_id = ${row}.client_id AND r.created_at > ${row}.created_at
               AND ${wroteAfter(sql`r`, row)} AND r.type = 'chat' AND r.direction = 'inbound' AND r.status IS DISTINCT FROM 'imported')
     OR EXISTS (SELECT 1 FROM communications r WHERE r.peer_phone = ${row}.to_digits AND r.created_at > ${row}.created_at
               AND ${wroteAfter(sql`r`, row)} AND r.type = 'chat' AND r.direction = 'inbound' AND r.status IS DISTINCT FROM 'imported')))`;

/**
 * SQL: the message `r` was written after the send `row` was scheduled, by its own time (the
 * provider's timestamp, in whole seconds, so the second it was scheduled in counts as after; never
 * later than it was stored): a message written before and delivered late is no reply to it. Stored
 * after (the caller's condition, which the index serves) is also needed.
 */
const wroteAfter = (r: Sql, row: Sql): Sql =>
  sql`least(coalesce(${r}.provider_timestamp, ${r}.created_at), ${r}.created_at) >= date_trunc('second', ${row}.created_at)`;

const NEVER_GOES =
  'By then the client’s 24-hour window will have closed, and only a new message from them could reopen it — which would stop this send. Choose a time before the window closes, send an approved template instead, or untick “Don’t send if they reply first”.';

/**
 * Refuses a text or a file that waits for no reply and is due after the number's 24-hour window
 * closes: only a new message from the client could reopen the window, and that message would stop
 * it, so it could never go (INVALID_INPUT on `unlessReplied`). A template reaches past the window.
 */
export async function assertMayGoUnlessReplied(
  what: { kind: string; unlessReplied: boolean; digits: string; sendAt: Date },
  transaction?: Transaction,
): Promise<void> {
  if (!what.unlessReplied || (what.kind !== 'text' && what.kind !== 'file')) return;
  const [row] = await queryRows<{ open: boolean }>(
    sql`SELECT ${windowOpen(sql`${what.digits}::text`, sql`${what.sendAt}::timestamptz`)} AS open`,
    { transaction },
  );
  if (!row?.open) throw new AppError('INVALID_INPUT', NEVER_GOES, { unlessReplied: ['Only a template can go after the 24-hour window.'] });
}
