import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { TLogger } from '../logger';
import type { TSearchLanguage } from '../search-language';

// The message search column, built for SEARCH_LANGUAGE. These run at start-up on the migrator's own
// connection (no statement timeout: a rebuild re-reads every record), which is why they take the
// pool they run on rather than using db() (server/decisions/0001-one-database-handle.md).

/**
 * The generated column's definition for one language (a literal: generated columns take no
 * parameters). Chat records only, so the column's statistics describe the words search looks in.
 */
export function searchColumnSql(language: TSearchLanguage): string {
  return `tsvector GENERATED ALWAYS AS (CASE WHEN type = 'chat' THEN to_tsvector('${language}'::regconfig, coalesce(subject, '') || ' ' || body) END) STORED`;
}

/**
 * Ten times PostgreSQL's default sample of the column's words: the planner learns how common the
 * less common ones are, so a search for a rare word reads the index rather than walking the newest
 * records (server/inbox/search-messages.ts), and one for a common word the other way round.
 */
const SEARCH_STATISTICS_SQL = 'ALTER TABLE communications ALTER COLUMN search SET STATISTICS 1000';

/** Replaces the search column and its index: every record is re-read (slow on a large database). */
export async function rebuildSearchColumn(sequelize: Sequelize, language: TSearchLanguage, transaction: Transaction): Promise<void> {
  for (const statement of [
    'SET LOCAL statement_timeout = 0',
    'ALTER TABLE communications DROP COLUMN IF EXISTS search',
    `ALTER TABLE communications ADD COLUMN search ${searchColumnSql(language)}`,
    // New records' words wait in the index's pending list until it is merged, and every search
    // reads that list whole: 256 kB instead of the default 4 MB keeps that read well under a millisecond.
    'CREATE INDEX communications_search_idx ON communications USING gin (search) WITH (gin_pending_list_limit = 256)',
    SEARCH_STATISTICS_SQL,
    'ANALYZE communications',
  ]) {
    await sequelize.query(statement, { transaction });
  }
}

/**
 * The search column follows SEARCH_LANGUAGE: when the setting changes, the column and its index are
 * rebuilt once (every record is re-read: logged, and slow on a large database).
 */
export async function ensureSearchLanguage(sequelize: Sequelize, language: TSearchLanguage, logger: TLogger): Promise<void> {
  const [row] = await sequelize.query<{ language: string }>('SELECT language FROM search_settings', { type: QueryTypes.SELECT });
  if (row?.language === language) return;
  logger.warn({ from: row?.language, to: language }, 'SEARCH_LANGUAGE changed: rebuilding the message search index');
  await sequelize.transaction(async (transaction) => {
    await rebuildSearchColumn(sequelize, language, transaction);
    await sequelize.query('UPDATE search_settings SET language = $1', { bind: [language], transaction });
  });
}
