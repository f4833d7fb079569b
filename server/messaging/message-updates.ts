import { announcedCte } from '../events';
import { queryRows, sql, sqlInteger, type Sql } from '../core/sql';
import type { TMessageUpdate } from './inbound-message';

// Reactions, edits and deletions change the record they refer to; they never make a new one. Each
// is accepted only from the number in that record's conversation (nobody else can edit or react
// to a client's message), and each is safe to apply twice (a retried delivery changes nothing) or
// late (an older change delivered after a newer one never undoes it).
// Updates for a record not stored (yet, or ever) change nothing: they are counted, not kept.

/** The records an UPDATE … RETURNING c.id changed, announced to live views when it commits. */
const announced = (update: Sql): Sql => sql`
WITH changed AS (${update}), ${announcedCte(sql`changed`)}
SELECT id, (SELECT count(*) FROM announced) AS notified FROM changed`;

type TUpdateOf<T extends TMessageUpdate['type']> = Extract<TMessageUpdate, { type: T }>;

/** Reactions kept per message: the newest (one a number; echoes from the firm's phone may name many numbers). */
/** SQL: the record (`alias`) went through the number the update came through (server/numbers/README.md "Several numbers"); not routed: any. */
const sameNumber = (alias: Sql, update: TMessageUpdate): Sql =>
  update.firmNumberId === undefined ? sql`true` : sql`${alias}.firm_number_id = ${update.firmNumberId}`;

export const MAX_KEPT_REACTIONS = 20;

/**
 * Replaces the reacting number's reaction (an empty emoji removes it); the newest MAX_KEPT_REACTIONS stay.
 * Retried deliveries arrive late, so a change older than that number's stored reaction or removal is
 * dropped; a removal leaves its time in `metadata.reactions_removed` for that. Times are compared by the
 * second (the provider's are whole seconds, the firm's own reactions are stamped by this app), and a tie
 * goes to the one delivered last; a change without a time applies, as one made now.
 */
const reactionSql = (update: TUpdateOf<'reaction'>, at: string | null): Sql => {
  const [from, emoji] = [update.from, update.emoji];
  return announced(sql`
  UPDATE communications c
  SET metadata = jsonb_set(c.metadata, '{reactions}',
        coalesce((SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(t.reactions) WITH ORDINALITY AS x(e, i)
                  WHERE i > jsonb_array_length(t.reactions) - ${sqlInteger(MAX_KEPT_REACTIONS)}), '[]'::jsonb))
      || CASE WHEN t.removed = '[]'::jsonb AND NOT c.metadata ? 'reactions_removed' THEN '{}'::jsonb
           ELSE jsonb_build_object('reactions_removed',
             coalesce((SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(t.removed) WITH ORDINALITY AS x(e, i)
                       WHERE i > jsonb_array_length(t.removed) - ${sqlInteger(MAX_KEPT_REACTIONS)}), '[]'::jsonb)) END,
      updated_at = now()
  FROM (
    SELECT o.id,
      coalesce((SELECT jsonb_agg(r) FROM jsonb_array_elements(o.metadata->'reactions') r WHERE r->>'from' <> ${from}), '[]'::jsonb)
      || CASE WHEN ${emoji}::text = '' THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('from', ${from}::text, 'emoji', ${emoji}::text, 'at', ${at}::timestamptz)) END
      AS reactions,
      coalesce((SELECT jsonb_agg(r) FROM jsonb_array_elements(o.metadata->'reactions_removed') r WHERE r->>'from' <> ${from}), '[]'::jsonb)
      || CASE WHEN ${emoji}::text = '' AND ${at}::timestamptz IS NOT NULL THEN jsonb_build_array(jsonb_build_object('from', ${from}::text, 'at', ${at}::timestamptz)) ELSE '[]'::jsonb END
      AS removed
    FROM communications o
    WHERE o.metadata->>'chat_msg_id' = ${update.targetId} AND o.type = 'chat' AND o.peer_phone = ${update.peerPhone} AND ${sameNumber(sql`o`, update)}
      AND NOT EXISTS (
        SELECT 1 FROM jsonb_array_elements(coalesce(o.metadata->'reactions', '[]'::jsonb) || coalesce(o.metadata->'reactions_removed', '[]'::jsonb)) r
        WHERE r->>'from' = ${from} AND date_trunc('second', (r->>'at')::timestamptz) > ${at}::timestamptz)
    FOR UPDATE
  ) t
  WHERE c.id = t.id
  RETURNING c.id`);
};

/** Earlier texts kept per message: the newest; `metadata.edits_dropped` counts the rest (server/webhook/README.md "The inbound webhook"). */
export const MAX_KEPT_EDITS = 20;

/**
 * Edits as a chain: the earlier texts (`metadata.edits`, each with the edit that replaced it) and then
 * the current text. An edit goes in before the first link replaced after its own time: the newest one
 * becomes the body, an older one delivered late takes its place in the history and leaves the body
 * alone. Ties go to the one delivered last; an edit without a time is the newest, as one made now.
 * Once revoked, the body is what the firm had when the client deleted it: only older edits go in.
 * A retried edit is recognised by its id; once some were dropped, an edit older than the oldest kept
 * one is a retried delivery of a dropped one (its id is no longer there) and changes nothing.
 * Of the chain, the newest MAX_KEPT_EDITS earlier texts stay.
 */
const editSql = (update: TUpdateOf<'edit'>, at: string | null): Sql =>
  announced(sql`
  UPDATE communications c
  SET body = t.chain->-1->>'body',
      metadata = c.metadata
        || jsonb_build_object('edits', (SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(t.chain) WITH ORDINALITY AS x(e, i)
                                         WHERE i < jsonb_array_length(t.chain) AND i >= jsonb_array_length(t.chain) - ${sqlInteger(MAX_KEPT_EDITS)}))
        || CASE WHEN jsonb_array_length(t.chain) - 1 > ${sqlInteger(MAX_KEPT_EDITS)}
             THEN jsonb_build_object('edits_dropped', coalesce((c.metadata->>'edits_dropped')::int, 0) + jsonb_array_length(t.chain) - 1 - ${sqlInteger(MAX_KEPT_EDITS)})
             ELSE '{}'::jsonb END,
      updated_at = now()
  FROM (
    SELECT p.id,
      (SELECT jsonb_agg(v.e ORDER BY x.i, v.k) FROM jsonb_array_elements(p.chain) WITH ORDINALITY AS x(e, i)
         CROSS JOIN LATERAL (VALUES
           (1, CASE WHEN x.i = p.pos THEN jsonb_build_object('id', ${update.updateId}::text, 'body', x.e->'body', 'at', ${at}::timestamptz) ELSE x.e END),
           (2, CASE WHEN x.i = p.pos THEN jsonb_set(x.e, '{body}', to_jsonb(${update.body}::text)) END)) AS v(k, e)
         WHERE v.e IS NOT NULL) AS chain
    FROM (
      SELECT o.id, o.metadata ? 'revoked_at' AS revoked, l.chain,
        coalesce((SELECT min(i) FROM jsonb_array_elements(l.chain) WITH ORDINALITY AS y(e, i)
                  WHERE (e->>'at')::timestamptz > ${at}::timestamptz), jsonb_array_length(l.chain)) AS pos
      FROM communications o
        CROSS JOIN LATERAL (SELECT coalesce(o.metadata->'edits', '[]'::jsonb) || jsonb_build_array(jsonb_build_object('body', o.body)) AS chain) l
      WHERE o.metadata->>'chat_msg_id' = ${update.targetId} AND o.type = 'chat' AND o.peer_phone = ${update.peerPhone} AND ${sameNumber(sql`o`, update)} AND o.direction = ${update.direction}
        AND NOT coalesce(o.metadata->'edits', '[]'::jsonb) @> jsonb_build_array(jsonb_build_object('id', ${update.updateId}::text))
        AND NOT (o.metadata ? 'edits_dropped' AND ${at}::timestamptz < (o.metadata->'edits'->0->>'at')::timestamptz)
      FOR UPDATE OF o
    ) p
    WHERE NOT (p.revoked AND p.pos = jsonb_array_length(p.chain))
  ) t
  WHERE c.id = t.id
  RETURNING c.id`);

/** Marks it deleted by its sender; the content stays on the firm's record. */
const revokeSql = (update: TUpdateOf<'revoke'>, at: string | null): Sql =>
  announced(sql`
  UPDATE communications c
  SET metadata = c.metadata || jsonb_build_object('revoked_at', coalesce(${at}::timestamptz, now())),
      updated_at = now()
  WHERE c.metadata->>'chat_msg_id' = ${update.targetId} AND c.type = 'chat' AND c.peer_phone = ${update.peerPhone} AND ${sameNumber(sql`c`, update)} AND c.direction = ${update.direction}
    AND NOT c.metadata ? 'revoked_at'
  RETURNING c.id`);

/** Applies the updates in delivery order (each weighed by its own time, above). Returns the records changed. */
export async function applyMessageUpdates(updates: TMessageUpdate[]): Promise<number[]> {
  const changed = new Set<number>();
  for (const update of updates) {
    const at = update.at?.toISOString() ?? null;
    const statement =
      update.type === 'reaction' ? reactionSql(update, at) : update.type === 'edit' ? editSql(update, at) : revokeSql(update, at);
    const rows = await queryRows<{ id: number }>(statement);
    for (const row of rows) changed.add(row.id);
  }
  return [...changed];
}
