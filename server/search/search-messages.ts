import { QueryTypes, type Sequelize } from 'sequelize';
import type { TCommunication } from '../../shared/communication';
import { Communication, communicationColumnsSql, withDetails } from '../db/models';
import type { TSearchLanguage } from './search-language';

/** Marks around the matching words in `highlight`: control characters no stored text shows, split by the client into <mark>. */
export const HIGHLIGHT_START = '\u0002';
export const HIGHLIGHT_STOP = '\u0003';

export type TSearchHit = TCommunication & { highlight: string; clientName: string | null };

/** How many of the newest matches are ranked: a common word's thousands of older matches are not read. */
export const SEARCH_WINDOW = 300;

/**
 * Chat records by their words, best match first (then the newest stored): PostgreSQL full-text search with the
 * person's own query syntax (`websearch_to_tsquery`: "a phrase", -without, or), across every
 * conversation, linked or not (only chat records have words in `search`). `highlight` is the body with the matching words marked.
 *
 * Ranking reads each match's words, so only the newest SEARCH_WINDOW matches are ranked: a rare
 * word's matches come from the GIN index, a common word's by walking back from the newest record
 * (the planner picks from the column's statistics, which is why the query is written out in full —
 * a tsquery from a CTE would hide how common its words are). A further word narrows to older ones.
 */
export async function searchMessages(sequelize: Sequelize, input: { q: string; limit?: number; language: TSearchLanguage }): Promise<{ items: TSearchHit[] }> {
  const limit = input.limit ?? 30;
  const query = 'websearch_to_tsquery($3::regconfig, $1)';
  // The records themselves in the same statement, read into models.
  const rows = await sequelize.query<Communication>(
    `WITH best AS (
       SELECT m.id, ts_rank(m.search, ${query}) AS rank
       FROM (SELECT c.id, c.search FROM communications c
             WHERE c.search @@ ${query}
             ORDER BY c.id DESC LIMIT ${SEARCH_WINDOW}) m
       ORDER BY rank DESC, m.id DESC
       LIMIT $2
     )
     SELECT ${communicationColumnsSql('c')}, cl.name AS "clientName",
            ts_headline($3::regconfig, c.body, ${query}, 'StartSel=${HIGHLIGHT_START}, StopSel=${HIGHLIGHT_STOP}, MaxWords=30, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "') AS highlight
     FROM best JOIN communications c ON c.id = best.id LEFT JOIN clients cl ON cl.id = c.client_id
     ORDER BY best.rank DESC, best.id DESC`,
    { bind: [input.q, limit, input.language], model: Communication, mapToModel: true },
  );
  await withDetails(rows);
  return {
    items: rows.map((row) => {
      const extra = row.get({ plain: true }) as unknown as { highlight: string; clientName: string | null };
      return { ...row.toDto(), highlight: extra.highlight, clientName: extra.clientName };
    }),
  };
}
