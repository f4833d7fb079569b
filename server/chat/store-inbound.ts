import { QueryTypes, type Sequelize } from 'sequelize';
import { NOTIFY_CTE } from '../events/chat-events';
import { matchOneClientSql } from './client-match';
import type { TInboundText } from '../webhook/parse-payload';

export type TStoredInbound = { id: number; clientId: number | null; peerPhone: string; chatMsgId: string };

// One statement for the whole batch: client match by last 9 digits (exactly one match links,
// none or several leave it unlinked: never guess), and the unique index on the provider id
// makes a retried or concurrent duplicate delivery store nothing (no check-then-insert).
const INSERT_INBOUND_SQL = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::jsonb[]) WITH ORDINALITY
    AS x(chat_msg_id, peer_phone, body, provider_timestamp, contact_name, truncated, ord)
), matched AS (
  SELECT i.*,
    ${matchOneClientSql('i.peer_phone')} AS client_id
  FROM input i
), inserted AS (
  INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata, provider_timestamp)
  SELECT 'chat', 'inbound', body, client_id, peer_phone,
         jsonb_strip_nulls(jsonb_build_object('chat_msg_id', chat_msg_id, 'contact_name', contact_name, 'truncated', truncated)),
         provider_timestamp
  FROM matched ORDER BY ord
  ON CONFLICT ((metadata->>'chat_msg_id')) DO NOTHING
  RETURNING id, client_id, peer_phone, metadata->>'chat_msg_id' AS chat_msg_id
), ${NOTIFY_CTE('inserted')}
SELECT id, client_id AS "clientId", peer_phone AS "peerPhone", chat_msg_id AS "chatMsgId", (SELECT count(*) FROM announced) AS "notified"
FROM inserted`;

/** Stores inbound text messages; returns only the rows newly written. */
export async function storeInboundTexts(sequelize: Sequelize, texts: TInboundText[]): Promise<TStoredInbound[]> {
  if (texts.length === 0) return [];
  // Column arrays (unnest) parse faster than one JSON document of rows.
  const bind = [
    texts.map((t) => t.chatMsgId),
    texts.map((t) => t.peerPhone),
    texts.map((t) => t.body),
    texts.map((t) => t.providerTimestamp?.toISOString() ?? null),
    texts.map((t) => t.contactName),
    texts.map((t) => (t.truncated ? JSON.stringify(t.truncated) : null)),
  ];
  return sequelize.query<TStoredInbound>(INSERT_INBOUND_SQL, { bind, type: QueryTypes.SELECT });
}
