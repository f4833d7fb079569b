import { threadKeyOf } from '../../shared/thread-key';
import { queryRows, sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { assertSubjectVisible } from '../access';
import { phoneDigitsOf, type TThreadRef } from '../conversations';
import { markThreadNotificationsRead } from '../notifications';

function whereForThread(ref: TThreadRef): { clientId: number } | { clientId: null; peerPhone: string } {
  return 'clientId' in ref ? { clientId: ref.clientId } : { clientId: null, peerPhone: phoneDigitsOf(ref.phone) };
}

/**
 * Marks the thread's inbound records the reader may see read, and the reader's notifications
 * about it (server/ownership/README.md "Ownership": having read the conversation, they need no more telling of it);
 * returns how many records were unread.
 */
export async function markThreadRead(reader: TReader, ref: TThreadRef, now: Date): Promise<number> {
  if ('clientId' in ref) await assertSubjectVisible(reader, { clientId: ref.clientId });
  const where = whereForThread(ref);
  await markThreadNotificationsRead(reader, threadKeyOf({ peerPhone: null, ...where }), now);
  const rows = await queryRows(
    sql`UPDATE communications c SET read_at = ${now}, updated_at = now()
     WHERE c.type = 'chat' AND c.direction = 'inbound' AND c.read_at IS NULL AND ${visibleTo(reader, sql`c.client_id`, sql`c.case_id`)}
       AND ${'peerPhone' in where ? sql`c.client_id IS NULL AND c.peer_phone = ${where.peerPhone}` : sql`c.client_id = ${where.clientId}`}
     RETURNING c.id`,
  );
  return rows.length;
}
