import type { TReadReceiptMode } from '../../shared/read-receipts';
import { threadKeyOf } from '../../shared/thread-key';
import { stopsNumber } from '../opt-outs';
import type { TConfig } from '../core/config';
import type { TLogger } from '../core/logger';
import { queryRows, sql, type Sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { announcedCte } from '../events';
import { ProviderError } from '../provider';
import { AppError } from '../core/errors';
import type { TSendDeps } from './send-deps';

// Read receipts on the client's phone (server/messaging/README.md "Read receipts"): by the firm's policy
// (Settings; READ_RECEIPTS until a director sets it), an opening marks the client's last message read
// at the provider — which shows the client blue ticks on it and on everything before it. With
// `assignee`, only the assignee's opening (anyone's while nobody has it): a colleague glancing at a
// conversation must not tell the client it was dealt with.

export type TMarkReadDeps = Pick<TSendDeps, 'provider' | 'providerFor'> & {
  /** The policy in force while no director has set one. */
  config: Pick<TConfig, 'readReceipts'>;
  logger?: Pick<TLogger, 'warn'>;
};
/** A conversation: a client's, or an unlinked number's (digits). */
export type TReadThread = { clientId: number } | { peerPhone: string };

/**
 * Claims, per number that wrote in the conversation, its newest message the reader may see, unless
 * it was marked read before: `marked_read_at` is written first (on the record itself, so a second
 * opening — also at the same moment, in another tab — finds it taken and calls nothing) and only
 * when the policy lets this reader's opening tell. Announced, so the thread can show it.
 */
const claimSql = (reader: TReader, thread: TReadThread, key: string, now: Date, defaultMode: TReadReceiptMode): Sql => sql`
WITH policy AS (
  SELECT coalesce((SELECT p.mode FROM read_receipt_policy p), ${defaultMode}) AS mode
), last AS (
  SELECT DISTINCT ON (c.peer_phone) c.id
  FROM communications c
  WHERE c.type = 'chat' AND c.direction = 'inbound' AND c.peer_phone IS NOT NULL AND c.metadata ? 'chat_msg_id'
    AND NOT c.metadata ? 'revoked_at'
    AND ${'clientId' in thread ? sql`c.client_id = ${thread.clientId}` : sql`c.client_id IS NULL AND c.peer_phone = ${thread.peerPhone}`}
    AND ${visibleTo(reader, sql`c.client_id`, sql`c.case_id`)}
    AND CASE (SELECT mode FROM policy)
      WHEN 'anyone' THEN true
      WHEN 'assignee' THEN NOT EXISTS (
        SELECT 1 FROM conversation_states s WHERE s.thread_key = ${key} AND s.assignee_id IS NOT NULL AND s.assignee_id <> ${reader.id})
      ELSE false END
    -- A number that asked to receive nothing gets no blue ticks either (README "Read receipts").
    AND NOT EXISTS (SELECT 1 FROM number_opt_outs o WHERE o.last9 = right(c.peer_phone, 9) AND ${stopsNumber(sql`o`, sql`c.peer_phone`)})
  ORDER BY c.peer_phone, coalesce(c.provider_timestamp, c.created_at) DESC, c.id DESC
), changed AS (
  UPDATE communications c SET metadata = c.metadata || jsonb_build_object('marked_read_at', ${now.toISOString()}::timestamptz), updated_at = now()
  FROM last WHERE c.id = last.id AND NOT c.metadata ? 'marked_read_at'
  RETURNING c.id, c.metadata->>'chat_msg_id' AS "messageId", c.firm_number_id AS "firmNumberId"
), ${announcedCte(sql`changed`)}
SELECT id, "messageId", "firmNumberId", (SELECT count(*) FROM announced) AS notified FROM changed`;

/** A mark the provider did not take is taken back, so the next opening tries again. */
const releaseSql = (id: number, now: Date): Sql => sql`
WITH changed AS (
  UPDATE communications c SET metadata = c.metadata - 'marked_read_at', updated_at = now()
  WHERE c.id = ${id} AND c.metadata->>'marked_read_at' IS NOT NULL AND (c.metadata->>'marked_read_at')::timestamptz = ${now.toISOString()}::timestamptz
  RETURNING c.id
), ${announcedCte(sql`changed`)}
SELECT id, (SELECT count(*) FROM announced) AS notified FROM changed`;

/**
 * Marks the conversation's last messages read on the client's phone when the policy lets `reader`'s
 * opening tell; returns how many were marked. Demo mode marks them here and sends nothing. A provider failure
 * never fails the reader's own read: it is logged (ids and the provider's code, never a body) and
 * the mark is taken back for the next opening.
 */
export async function markReadAtProvider(deps: TMarkReadDeps, reader: TReader, thread: TReadThread, now = new Date()): Promise<number> {
  const key = threadKeyOf(
    'clientId' in thread ? { clientId: thread.clientId, peerPhone: null } : { clientId: null, peerPhone: thread.peerPhone },
  );
  const claimed = await queryRows<{ id: number; messageId: string; firmNumberId: number }>(
    claimSql(reader, thread, key, now, deps.config.readReceipts),
  );
  if (!deps.provider) return claimed.length;
  let marked = 0;
  for (const { id, messageId, firmNumberId } of claimed) {
    try {
      // The number the message came to marks it: the provider knows it under that number's key.
      const provider = (deps.providerFor ? await deps.providerFor(firmNumberId) : null) ?? deps.provider;
      await provider.markRead(messageId);
      marked++;
    } catch (error) {
      // The number it came to was deactivated (or its key cannot be opened): read here, no tick on the phone.
      if (error instanceof AppError) continue;
      const provider = error instanceof ProviderError ? { kind: error.kind, status: error.status, code: error.code } : {};
      deps.logger?.warn({ recordId: id, ...provider }, 'the provider did not mark a message read; the next opening tries again');
      await queryRows(releaseSql(id, now)).catch(() => undefined); // left marked: the client's phone misses one blue tick, nothing else
    }
  }
  return marked;
}
