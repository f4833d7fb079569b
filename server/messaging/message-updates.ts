import { QueryTypes } from 'sequelize';
import { NOTIFY_CTE } from '../events';
import { db } from '../core/db/db';
import type { TMessageUpdate } from './inbound-message';

// Reactions, edits and deletions change the record they refer to; they never make a new one. Each
// is accepted only from the number in that record's conversation (nobody else can edit or react
// to a client's message), and each is safe to apply twice (a retried delivery changes nothing).
// Updates for a record not stored (yet, or ever) change nothing: they are counted, not kept.

/** The records an UPDATE … RETURNING c.id changed, announced to live views when it commits. */
const announced = (update: string) => `
WITH changed AS (${update}), ${NOTIFY_CTE('changed')}
SELECT id, (SELECT count(*) FROM announced) AS notified FROM changed`;

/** Reactions kept per message: the newest (one a number; echoes from the firm's phone may name many numbers). */
export const MAX_KEPT_REACTIONS = 20;

/** Replaces the reacting number's reaction (an empty emoji removes it); the newest MAX_KEPT_REACTIONS stay. */
const REACTION_SQL = announced(`
  UPDATE communications c
  SET metadata = jsonb_set(c.metadata, '{reactions}',
        coalesce((SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(t.reactions) WITH ORDINALITY AS x(e, i)
                  WHERE i > jsonb_array_length(t.reactions) - ${MAX_KEPT_REACTIONS}), '[]'::jsonb)),
      updated_at = now()
  FROM (
    SELECT o.id,
      coalesce((SELECT jsonb_agg(r) FROM jsonb_array_elements(o.metadata->'reactions') r WHERE r->>'from' <> $3), '[]'::jsonb)
      || CASE WHEN $4 = '' THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('from', $3::text, 'emoji', $4::text, 'at', $5::timestamptz)) END
      AS reactions
    FROM communications o
    WHERE o.metadata->>'chat_msg_id' = $1 AND o.type = 'chat' AND o.peer_phone = $2
    FOR UPDATE
  ) t
  WHERE c.id = t.id
  RETURNING c.id`);

/** Earlier texts kept per message: the newest; `metadata.edits_dropped` counts the rest (README "The inbound webhook"). */
export const MAX_KEPT_EDITS = 20;

/**
 * The new body; the one it replaces goes to `metadata.edits` (once per edit id), of which the newest
 * MAX_KEPT_EDITS stay. Once some were dropped, an edit older than the oldest kept one is a retried
 * delivery of a dropped one (its id is no longer there to recognise it) and changes nothing.
 */
const EDIT_SQL = announced(`
  UPDATE communications c
  SET body = $5,
      metadata = c.metadata
        || jsonb_build_object('edits', (SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(t.edits) WITH ORDINALITY AS x(e, i)
                                         WHERE i > jsonb_array_length(t.edits) - ${MAX_KEPT_EDITS}))
        || CASE WHEN jsonb_array_length(t.edits) > ${MAX_KEPT_EDITS}
             THEN jsonb_build_object('edits_dropped', coalesce((c.metadata->>'edits_dropped')::int, 0) + jsonb_array_length(t.edits) - ${MAX_KEPT_EDITS})
             ELSE '{}'::jsonb END,
      updated_at = now()
  FROM (
    SELECT o.id, coalesce(o.metadata->'edits', '[]'::jsonb)
             || jsonb_build_array(jsonb_build_object('id', $4::text, 'body', o.body, 'at', $6::timestamptz)) AS edits
    FROM communications o
    WHERE o.metadata->>'chat_msg_id' = $1 AND o.type = 'chat' AND o.peer_phone = $2 AND o.direction = $3
      AND NOT coalesce(o.metadata->'edits', '[]'::jsonb) @> jsonb_build_array(jsonb_build_object('id', $4::text))
      AND NOT (o.metadata ? 'edits_dropped' AND $6::timestamptz < (o.metadata->'edits'->0->>'at')::timestamptz)
    FOR UPDATE
  ) t
  WHERE c.id = t.id
  RETURNING c.id`);

/** Marks it deleted by its sender; the content stays on the firm's record. */
const REVOKE_SQL = announced(`
  UPDATE communications c
  SET metadata = c.metadata || jsonb_build_object('revoked_at', coalesce($4::timestamptz, now())),
      updated_at = now()
  WHERE c.metadata->>'chat_msg_id' = $1 AND c.type = 'chat' AND c.peer_phone = $2 AND c.direction = $3
    AND NOT c.metadata ? 'revoked_at'
  RETURNING c.id`);

/** Applies the updates in delivery order (two reactions from one number: the last one stands). Returns the records changed. */
export async function applyMessageUpdates(updates: TMessageUpdate[]): Promise<number[]> {
  const changed = new Set<number>();
  for (const update of updates) {
    const at = update.at?.toISOString() ?? null;
    const [sql, bind] =
      update.type === 'reaction'
        ? [REACTION_SQL, [update.targetId, update.peerPhone, update.from, update.emoji, at]]
        : update.type === 'edit'
          ? [EDIT_SQL, [update.targetId, update.peerPhone, update.direction, update.updateId, update.body, at]]
          : [REVOKE_SQL, [update.targetId, update.peerPhone, update.direction, at]];
    const rows = await db().query<{ id: number }>(sql, { bind, type: QueryTypes.SELECT });
    for (const row of rows) changed.add(row.id);
  }
  return [...changed];
}
