import { QueryTypes, type Sequelize } from 'sequelize';
import type { TLogger } from '../logger';

/** PostgreSQL's built-in text-search configurations (`SEARCH_LANGUAGE`). */
export const SEARCH_LANGUAGES = [
  'simple', 'arabic', 'armenian', 'basque', 'catalan', 'danish', 'dutch', 'english', 'finnish', 'french', 'german', 'greek', 'hindi',
  'hungarian', 'indonesian', 'irish', 'italian', 'lithuanian', 'nepali', 'norwegian', 'portuguese', 'romanian', 'russian', 'serbian',
  'spanish', 'swedish', 'tamil', 'turkish', 'yiddish',
] as const;
export type TSearchLanguage = (typeof SEARCH_LANGUAGES)[number];

/** The generated column's definition for one language (a literal: generated columns take no parameters). */
export function searchColumnSql(language: TSearchLanguage): string {
  return `tsvector GENERATED ALWAYS AS (to_tsvector('${language}'::regconfig, coalesce(subject, '') || ' ' || body)) STORED`;
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
    for (const statement of [
      'SET LOCAL statement_timeout = 0',
      'ALTER TABLE communications DROP COLUMN search',
      `ALTER TABLE communications ADD COLUMN search ${searchColumnSql(language)}`,
      'CREATE INDEX communications_search_idx ON communications USING gin (search)',
    ]) {
      await sequelize.query(statement, { transaction });
    }
    await sequelize.query('UPDATE search_settings SET language = $1', { bind: [language], transaction });
  });
}
