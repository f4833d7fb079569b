import { QueryTypes } from 'sequelize';
import { listAutoReplyCandidates, queueAutoRepliesSql } from '../business-hours';
import { matchOneClientSql } from '../crm';
import { NOTIFY_CTE } from '../events';
import { NO_DOWNLOADS_IN_DEMO } from '../media';
import { db } from '../core/db/db';
import type { TInboundMessage } from './inbound-message';
import { releaseAdoptedIds } from './receipts';

export type TStoredInbound = { id: number; clientId: number | null; peerPhone: string; chatMsgId: string; hasAttachment: boolean };

// One statement for the whole batch: client match by exact number, then last 9 digits (exactly one match links,
// none or several leave it unlinked: never guess), and the unique index on the provider id
// makes a retried or concurrent duplicate delivery store nothing (no check-then-insert). A file
// is recorded `pending` beside its message in the same statement, due at once: the media queue
// downloads it after the webhook has answered. Out of hours, the batch's senders are queued the
// firm's reply in the same statement (README "Business hours"), sent later by the scheduled-sends worker.
const INSERT_INBOUND_SQL = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::jsonb[], $7::text[], $8::jsonb[], $9::jsonb[]) WITH ORDINALITY
    AS x(chat_msg_id, peer_phone, body, provider_timestamp, contact_name, truncated, direction, extra, attachment, ord)
), matched AS (
  SELECT i.*,
    ${matchOneClientSql('i.peer_phone')} AS client_id
  FROM input i
), inserted AS (
  INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, provider_timestamp)
  SELECT 'chat', direction, CASE WHEN direction = 'outbound' THEN 'sent' END, body, client_id, peer_phone,
         coalesce(extra, '{}'::jsonb) || jsonb_strip_nulls(jsonb_build_object('chat_msg_id', chat_msg_id, 'contact_name', contact_name, 'truncated', truncated)),
         provider_timestamp
  FROM matched ORDER BY ord
  ON CONFLICT ((metadata->>'chat_msg_id')) DO NOTHING
  RETURNING id, client_id, peer_phone, metadata->>'chat_msg_id' AS chat_msg_id, provider_timestamp
), files AS (
  INSERT INTO attachments (communication_id, kind, provider_media_id, mime_type, file_name, expected_sha256, state, error, next_attempt_at)
  SELECT DISTINCT ON (n.id) n.id, i.attachment->>'kind', i.attachment->>'providerMediaId', i.attachment->>'mimeType', i.attachment->>'fileName',
         i.attachment->>'expectedSha256',
         CASE WHEN $10::boolean THEN 'pending' ELSE 'failed' END,
         CASE WHEN $10::boolean THEN NULL ELSE $11::text END,
         CASE WHEN $10::boolean THEN now() END
  FROM inserted n JOIN input i ON i.chat_msg_id = n.chat_msg_id
  WHERE i.attachment IS NOT NULL
  ORDER BY n.id, i.ord
  RETURNING communication_id, state
), ${NOTIFY_CTE('inserted')}, ${queueAutoRepliesSql('inserted', '$12::text[]')}
SELECT id, client_id AS "clientId", peer_phone AS "peerPhone", chat_msg_id AS "chatMsgId",
       EXISTS (SELECT 1 FROM files f WHERE f.communication_id = inserted.id AND f.state = 'pending') AS "hasAttachment",
       (SELECT count(*) FROM announced) AS "notified"
FROM inserted`;

/**
 * Stores new chat records of every kind (echoes as outbound `sent`); returns only the rows newly
 * written. `canDownload`: false in demo mode (no provider key), where a file is recorded failed with
 * the reason at once rather than queued for a download that cannot happen.
 */
export async function storeInboundMessages(messages: TInboundMessage[], canDownload = true): Promise<TStoredInbound[]> {
  if (messages.length === 0) return [];
  // An echo whose id a send of unknown outcome took from its receipt is that echo's, not the send's.
  const echoes = messages.filter((m) => m.direction === 'outbound').map((m) => m.chatMsgId);
  if (echoes.length) await releaseAdoptedIds(echoes);
  // Column arrays (unnest) parse faster than one JSON document of rows.
  const bind = [
    messages.map((m) => m.chatMsgId),
    messages.map((m) => m.peerPhone),
    messages.map((m) => m.body),
    messages.map((m) => m.providerTimestamp?.toISOString() ?? null),
    messages.map((m) => m.contactName),
    messages.map((m) => (m.truncated ? JSON.stringify(m.truncated) : null)),
    messages.map((m) => m.direction),
    messages.map((m) => (Object.keys(m.extra).length ? JSON.stringify(m.extra) : null)),
    messages.map((m) => (m.attachment ? JSON.stringify(m.attachment) : null)),
    canDownload,
    NO_DOWNLOADS_IN_DEMO, // bound, not pasted into the SQL: the sentence may one day hold a quote
    listAutoReplyCandidates(messages),
  ];
  return db().query<TStoredInbound>(INSERT_INBOUND_SQL, { bind, type: QueryTypes.SELECT });
}
