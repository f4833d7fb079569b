import type { TCommunication } from '../../shared/communication';
import { Communication, communicationColumnsSql, withDetails } from '../core/db/models/index';
import { decodeCursor, endPage } from '../core/record-pages';
import type { TSearchLanguage } from '../core/search-language';
import { db } from '../core/db/db';
import { empty, raw, sql, sqlInteger } from '../core/sql';
import { visibleTo, type TViewer } from '../core/visibility';

/** Marks around the matching words in `highlight`: control characters no text shows, split by the client into <mark>. */
export const HIGHLIGHT_START = '\u0002';
export const HIGHLIGHT_STOP = '\u0003';
/**
 * The body ts_headline marks up, with any of the marks it already holds (a client's phone can send
 * them) replaced by U+FFFD: a message must not mark words of its own. The record keeps them.
 */
const BODY_WITHOUT_MARKS = raw(
  `translate(c.body, chr(${HIGHLIGHT_START.charCodeAt(0)}) || chr(${HIGHLIGHT_STOP.charCodeAt(0)}), chr(65533) || chr(65533))`,
);
/** ts_headline's options: the marks above around each match, and the fragments it shows. */
const HEADLINE_OPTIONS = raw(
  `'StartSel=${HIGHLIGHT_START}, StopSel=${HIGHLIGHT_STOP}, MaxWords=30, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "'`,
);

export type TSearchHit = TCommunication & { highlight: string; clientName: string | null };

// A search cursor holds the last hit's rank (a `real` as PostgreSQL printed it) and id.
const RANK = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;
/** A rank PostgreSQL's `real` can hold (a rank is never near its limits). */
const isRank = (value: string) =>
  RANK.test(value) && (Number(value) === 0 || (Math.abs(Number(value)) >= 1e-37 && Math.abs(Number(value)) <= 1e37));
const REFUSED = { message: 'That page position is not valid: search again.', field: 'Not a cursor from this search.' };

/** How many of the newest matches are ranked: a common word's thousands of older matches are not read. */
export const SEARCH_WINDOW = 300;

/**
 * Chat records by their words, best match first (then the newest stored): PostgreSQL full-text search with the
 * person's own query syntax (`websearch_to_tsquery`: "a phrase", -without, or), across every
 * conversation the reader may see, linked or not (only chat records have words in `search`); a
 * record they are walled from is never ranked, so neither it nor its highlight comes back. `highlight` is the body with the matching words marked
 * (and only them).
 *
 * Ranking reads each match's words, so only the newest SEARCH_WINDOW matches are ranked: a rare
 * word's matches come from the GIN index, a common word's by walking back from the newest record
 * (the planner picks from the column's statistics, which is why the query is written out in full —
 * a tsquery from a CTE would hide how common its words are). A further word narrows to older ones.
 */
export async function searchMessages(
  viewer: TViewer,
  input: {
    q: string;
    limit?: number;
    cursor?: string;
    language: TSearchLanguage;
  },
): Promise<{ items: TSearchHit[]; nextCursor: string | null }> {
  const limit = input.limit ?? 30;
  const language = sql`${input.language}::regconfig`;
  const query = sql`websearch_to_tsquery(${language}, ${input.q})`;
  // A further page: the hits ranked after the last one shown (its rank, then its id), in the same window.
  const after = input.cursor ? decodeCursor(input.cursor, isRank, REFUSED) : null;
  // The records themselves in the same statement, read into models (queryRows gives plain rows).
  const statement = sql`WITH best AS (
       SELECT r.id, r.rank FROM (
         SELECT m.id, ts_rank(m.search, ${query}) AS rank
         FROM (SELECT c.id, c.search FROM communications c
               WHERE c.search @@ ${query} AND ${visibleTo(viewer, sql`c.client_id`, sql`c.case_id`)}
               ORDER BY c.id DESC LIMIT ${sqlInteger(SEARCH_WINDOW)}) m
       ) r
       ${after ? sql`WHERE (r.rank, r.id) < (${after.value}::real, ${after.id})` : empty}
       ORDER BY r.rank DESC, r.id DESC
       LIMIT ${limit} + 1
     )
     SELECT ${raw(communicationColumnsSql('c'))}, cl.name AS "clientName", best.rank::text AS "searchRank",
            ts_headline(${language}, ${BODY_WITHOUT_MARKS}, ${query}, ${HEADLINE_OPTIONS}) AS highlight
     FROM best JOIN communications c ON c.id = best.id LEFT JOIN clients cl ON cl.id = c.client_id
     ORDER BY best.rank DESC, best.id DESC`;
  const rows = await db().query<Communication>(statement.text, { bind: statement.values, model: Communication, mapToModel: true });
  const extrasOf = (row: Communication) =>
    row.get({ plain: true }) as unknown as { highlight: string; clientName: string | null; searchRank: string };
  const page = endPage(rows, limit, (row) => extrasOf(row).searchRank);
  await withDetails(page.rows);
  return {
    items: page.rows.map((row) => ({ ...row.toDto(), highlight: extrasOf(row).highlight, clientName: extrasOf(row).clientName })),
    nextCursor: page.next,
  };
}
