import { QueryTypes } from 'sequelize';
import { threadKeyOf } from '../../shared/thread-key';
import { stopsNumberSql } from '../crm';
import { db } from '../core/db/db';
import type { TLogger } from '../core/logger';
import { visibleToSql, type TReader } from '../core/visibility';
import { NOTIFY_CTE } from '../events';
import { ProviderError } from '../provider';
import type { TSendDeps } from './send-deps';

// Read receipts on the client's phone (README "Read receipts"): with READ_RECEIPTS=assignee, the
// person a conversation is assigned to opening it marks the client's last message read at the
// provider — which shows the client blue ticks on it and on everything before it. Only the
// assignee: a colleague glancing at a conversation must not tell the client it was dealt with.

export type TMarkReadDeps = Pick<TSendDeps, 'provider'> & { logger?: Pick<TLogger, 'warn'> };
/** A conversation: a client's, or an unlinked number's (digits). */
export type TReadThread = { clientId: number } | { peerPhone: string };

/**
 * Claims, per number that wrote in the conversation, its newest message the reader may see, unless
 * it was marked read before: `marked_read_at` is written first (on the record itself, so a second
 * opening — also at the same moment, in another tab — finds it taken and calls nothing) and only
 * for the conversation's assignee. Announced, so the thread can show it.
 */
const CLAIM_SQL = (thread: 'client' | 'phone') => `
WITH last AS (
  SELECT DISTINCT ON (c.peer_phone) c.id
  FROM communications c
  WHERE c.type = 'chat' AND c.direction = 'inbound' AND c.peer_phone IS NOT NULL AND c.metadata ? 'chat_msg_id'
    AND NOT c.metadata ? 'revoked_at'
    AND ${thread === 'client' ? 'c.client_id = $3' : 'c.client_id IS NULL AND c.peer_phone = $3'}
    AND ${visibleToSql('$2', 'c.client_id', 'c.case_id')}
    AND EXISTS (SELECT 1 FROM conversation_states s WHERE s.thread_key = $4 AND s.assignee_id = $2)
    -- A number that asked to receive nothing gets no blue ticks either (README "Read receipts").
    AND NOT EXISTS (SELECT 1 FROM number_opt_outs o WHERE o.last9 = right(c.peer_phone, 9) AND ${stopsNumberSql('o', 'c.peer_phone')})
  ORDER BY c.peer_phone, coalesce(c.provider_timestamp, c.created_at) DESC, c.id DESC
), changed AS (
  UPDATE communications c SET metadata = c.metadata || jsonb_build_object('marked_read_at', $1::timestamptz), updated_at = now()
  FROM last WHERE c.id = last.id AND NOT c.metadata ? 'marked_read_at'
  RETURNING c.id, c.metadata->>'chat_msg_id' AS "messageId"
), ${NOTIFY_CTE('changed')}
SELECT id, "messageId", (SELECT count(*) FROM announced) AS notified FROM changed`;

/** A mark the provider did not take is taken back, so the next opening tries again. */
const RELEASE_SQL = `
WITH changed AS (
  UPDATE communications c SET metadata = c.metadata - 'marked_read_at', updated_at = now()
  WHERE c.id = $1 AND c.metadata->>'marked_read_at' IS NOT NULL AND (c.metadata->>'marked_read_at')::timestamptz = $2::timestamptz
  RETURNING c.id
), ${NOTIFY_CTE('changed')}
SELECT id, (SELECT count(*) FROM announced) AS notified FROM changed`;

/**
 * Marks the conversation's last messages read on the client's phone when `reader` is its assignee;
 * returns how many were marked. Demo mode marks them here and sends nothing. A provider failure
 * never fails the reader's own read: it is logged (ids and the provider's code, never a body) and
 * the mark is taken back for the next opening.
 */
export async function markReadAtProvider(deps: TMarkReadDeps, reader: TReader, thread: TReadThread, now = new Date()): Promise<number> {
  const client = 'clientId' in thread;
  const key = threadKeyOf(client ? { clientId: thread.clientId, peerPhone: null } : { clientId: null, peerPhone: thread.peerPhone });
  const claimed = await db().query<{ id: number; messageId: string }>(CLAIM_SQL(client ? 'client' : 'phone'), {
    bind: [now.toISOString(), reader.id, client ? thread.clientId : thread.peerPhone, key],
    type: QueryTypes.SELECT,
  });
  if (!deps.provider) return claimed.length;
  let marked = 0;
  for (const { id, messageId } of claimed) {
    try {
      await deps.provider.markRead(messageId);
      marked++;
    } catch (error) {
      const provider = error instanceof ProviderError ? { kind: error.kind, status: error.status, code: error.code } : {};
      deps.logger?.warn({ recordId: id, ...provider }, 'the provider did not mark a message read; the next opening tries again');
      await db()
        .query(RELEASE_SQL, { bind: [id, now.toISOString()], type: QueryTypes.SELECT })
        .catch(() => undefined); // left marked: the client's phone misses one blue tick, nothing else
    }
  }
  return marked;
}
