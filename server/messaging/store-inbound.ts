import { autoReplyCtes, listAutoReplyCandidates } from '../business-hours';
import { matchOneClient } from '../crm';
import { announcedCte } from '../events';
import { NO_DOWNLOADS_IN_DEMO } from '../media';
import { empty, queryRows, sql, type Sql } from '../core/sql';
import type { TInboundMessage } from './inbound-message';
import { releaseAdoptedIds } from './receipts';

export type TStoredInbound = { id: number; clientId: number | null; peerPhone: string; chatMsgId: string; hasAttachment: boolean };

// One statement for the whole batch: client match by exact number, then last 9 digits (exactly one match links,
// none or several leave it unlinked: never guess), and the unique index on the provider id
// makes a retried or concurrent duplicate delivery store nothing (no check-then-insert). A file
// is recorded `pending` beside its message in the same statement, due at once: the media queue
// downloads it after the webhook has answered. Out of hours, the batch's senders are queued the
// firm's reply in the same statement (server/messaging/README.md "Business hours"), sent later by the scheduled-sends worker.
// Column arrays (unnest) parse faster than one JSON document of rows.
//
// `parts`: every part, always, in the app. The benchmark leaves one out at a time to price it per
// delivery (tests/bench/README.md "Ingest, part by part"); leaving one out changes what is stored.
export type TInboundParts = { match: boolean; files: boolean; notify: boolean; autoReplies: boolean };
export const EVERY_INBOUND_PART: TInboundParts = { match: true, files: true, notify: true, autoReplies: true };

export const insertInboundSql = (messages: TInboundMessage[], canDownload: boolean, parts: TInboundParts = EVERY_INBOUND_PART): Sql => sql`
WITH input AS (
  SELECT * FROM unnest(${messages.map((m) => m.chatMsgId)}::text[], ${messages.map((m) => m.peerPhone)}::text[],
    ${messages.map((m) => m.body)}::text[], ${messages.map((m) => m.providerTimestamp?.toISOString() ?? null)}::timestamptz[],
    ${messages.map((m) => m.contactName)}::text[], ${messages.map((m) => (m.truncated ? JSON.stringify(m.truncated) : null))}::jsonb[],
    ${messages.map((m) => m.direction)}::text[], ${messages.map((m) => (Object.keys(m.extra).length ? JSON.stringify(m.extra) : null))}::jsonb[],
    ${messages.map((m) => (m.attachment ? JSON.stringify(m.attachment) : null))}::jsonb[],
    ${messages.map((m) => m.firmNumberId ?? 1)}::int[]) WITH ORDINALITY
    AS x(chat_msg_id, peer_phone, body, provider_timestamp, contact_name, truncated, direction, extra, attachment, firm_number_id, ord)
), matched AS (
  SELECT i.*,
    ${parts.match ? matchOneClient(sql`i.peer_phone`) : sql`NULL::int`} AS client_id
  FROM input i
), inserted AS (
  INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, provider_timestamp, firm_number_id)
  SELECT 'chat', direction, CASE WHEN direction = 'outbound' THEN 'sent' END, body, client_id, peer_phone,
         coalesce(extra, '{}'::jsonb) || jsonb_strip_nulls(jsonb_build_object('chat_msg_id', chat_msg_id, 'contact_name', contact_name, 'truncated', truncated)),
         provider_timestamp, firm_number_id
  FROM matched ORDER BY ord
  ON CONFLICT ((metadata->>'chat_msg_id')) DO NOTHING
  RETURNING id, client_id, peer_phone, metadata->>'chat_msg_id' AS chat_msg_id, provider_timestamp
), files AS (
  INSERT INTO attachments (communication_id, kind, provider_media_id, mime_type, file_name, expected_sha256, state, error, next_attempt_at)
  SELECT DISTINCT ON (n.id) n.id, i.attachment->>'kind', i.attachment->>'providerMediaId', i.attachment->>'mimeType', i.attachment->>'fileName',
         i.attachment->>'expectedSha256',
         CASE WHEN ${canDownload}::boolean THEN 'pending' ELSE 'failed' END,
         -- Bound, not pasted into the SQL: the sentence may one day hold a quote.
         CASE WHEN ${canDownload}::boolean THEN NULL ELSE ${NO_DOWNLOADS_IN_DEMO}::text END,
         CASE WHEN ${canDownload}::boolean THEN now() END
  FROM inserted n JOIN input i ON i.chat_msg_id = n.chat_msg_id
  WHERE i.attachment IS NOT NULL ${parts.files ? empty : sql`AND false`}
  ORDER BY n.id, i.ord
  RETURNING communication_id, state
), ${parts.notify ? announcedCte(sql`inserted`) : sql`announced AS (SELECT NULL WHERE false)`}${
  parts.autoReplies ? sql`, ${autoReplyCtes(sql`inserted`, listAutoReplyCandidates(messages))}` : empty
}
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
  return queryRows<TStoredInbound>(insertInboundSql(messages, canDownload));
}
