import { threadKeyOf } from '../../shared/thread-key';
import { queryRows, sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { assertSubjectVisible } from '../access';
import { phoneDigitsOf, type TThreadRef } from '../conversations';
import { announceNotifications, markThreadNotificationsRead } from '../notifications';
import { readMarkJoin, SEEN_UNREAD, seenSummariesCte } from './threads-sql';

function whereForThread(ref: TThreadRef): { clientId: number } | { clientId: null; peerPhone: string } {
  return 'clientId' in ref ? { clientId: ref.clientId } : { clientId: null, peerPhone: phoneDigitsOf(ref.phone) };
}

/**
 * The reader has opened the conversation at its newest: it is read for them alone (their read mark,
 * server/inbox/README.md "Unread"), and so are their notifications about it (server/ownership/README.md
 * "Ownership": having read the conversation, they need no more telling of it); their other pages hear
 * of it. Returns how many records were unread for them.
 */
export async function markThreadRead(reader: TReader, ref: TThreadRef, now: Date): Promise<number> {
  if ('clientId' in ref) await assertSubjectVisible(reader, { clientId: ref.clientId });
  const where = whereForThread(ref);
  const key = threadKeyOf({ peerPhone: null, ...where });
  const [before] = await queryRows<{ unread: number }>(
    sql`WITH ${seenSummariesCte(reader)}
     SELECT (${SEEN_UNREAD})::int AS unread FROM chat_threads t ${readMarkJoin(reader)} LEFT JOIN seen s ON s.client_id = t.client_id
     WHERE t.thread_key = ${key}`,
  );
  const unread = before?.unread ?? 0;
  // Everything stored so far is read for them: the count the summary holds, and the newest id (the walls' line, threads-sql.ts).
  await queryRows(
    sql`INSERT INTO read_marks AS r (user_id, thread_key, read_count, read_through_id, read_at)
     SELECT ${reader.id}, t.thread_key, t.inbound, (SELECT coalesce(max(c.id), 0) FROM communications c), ${now}
     FROM chat_threads t WHERE t.thread_key = ${key}
     ON CONFLICT (user_id, thread_key) DO UPDATE SET read_count = excluded.read_count, read_through_id = excluded.read_through_id, read_at = excluded.read_at
     RETURNING 1`,
  );
  // communications.read_at stays the firm's first read (the export's readByFirmAt).
  await queryRows(
    sql`UPDATE communications c SET read_at = ${now}, updated_at = now()
     WHERE c.type = 'chat' AND c.direction = 'inbound' AND c.read_at IS NULL AND ${visibleTo(reader, sql`c.client_id`, sql`c.case_id`)}
       AND ${'peerPhone' in where ? sql`c.client_id IS NULL AND c.peer_phone = ${where.peerPhone}` : sql`c.client_id = ${where.clientId}`}
     RETURNING c.id`,
  );
  const cleared = await markThreadNotificationsRead(reader, key, now);
  // Their badge and lists in other tabs follow; nobody else's (the frame goes to their own streams only).
  if (unread > 0 && cleared === 0) await announceNotifications([reader.id]);
  return unread;
}
