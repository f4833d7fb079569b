import { QueryTypes, type Sequelize } from 'sequelize';
import type { TCommunication } from '../../shared/communication';
import { Communication, withDetails } from '../db/models';
import type { TSearchLanguage } from './search-language';

/** Marks around the matching words in `highlight`: control characters no stored text shows, split by the client into <mark>. */
export const HIGHLIGHT_START = '\u0002';
export const HIGHLIGHT_STOP = '\u0003';

export type TSearchHit = TCommunication & { highlight: string; clientName: string | null };

/**
 * Chat records by their words, best match first (then newest): PostgreSQL full-text search with the
 * person's own query syntax (`websearch_to_tsquery`: "a phrase", -without, or), across every
 * conversation, linked or not. `highlight` is the body with the matching words marked.
 */
export async function searchMessages(sequelize: Sequelize, input: { q: string; limit?: number; language: TSearchLanguage }): Promise<{ items: TSearchHit[] }> {
  const limit = input.limit ?? 30;
  const hits = await sequelize.query<{ id: number; highlight: string; clientName: string | null }>(
    `SELECT c.id, cl.name AS "clientName",
            ts_headline($3::regconfig, c.body, q, 'StartSel=${HIGHLIGHT_START}, StopSel=${HIGHLIGHT_STOP}, MaxWords=30, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "') AS highlight
     FROM websearch_to_tsquery($3::regconfig, $1) q, communications c
     LEFT JOIN clients cl ON cl.id = c.client_id
     WHERE c.search @@ q AND c.type = 'chat'
     ORDER BY ts_rank(c.search, q) DESC, c.created_at DESC, c.id DESC
     LIMIT $2`,
    { bind: [input.q, limit, input.language], type: QueryTypes.SELECT },
  );
  if (hits.length === 0) return { items: [] };
  const rows = await withDetails(await Communication.findAll({ where: { id: hits.map((h) => h.id) } }));
  const byId = new Map(rows.map((row) => [row.id, row.toDto()]));
  return { items: hits.filter((h) => byId.has(h.id)).map((h) => ({ ...byId.get(h.id)!, highlight: h.highlight, clientName: h.clientName })) };
}
