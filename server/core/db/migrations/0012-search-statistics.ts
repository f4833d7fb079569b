import { QueryTypes } from 'sequelize';
import type { TMigration } from '../migration-type';

// Search plans depend on how common each searched word is (README "Benchmarks", part 3): the
// search column now holds chat records' words only (notes and e-mails are not searched, and their
// words made a common word look common in chats too), with a larger statistics sample.
export const searchStatistics: TMigration = {
  name: '0012-search-statistics',
  async up({ context: qi }) {
    const [row] = await qi.sequelize.query<{ language: string }>('SELECT language FROM search_settings', {
      type: QueryTypes.SELECT,
    });
    const language = row?.language ?? 'english';
    // The column as this step built it, written out here (not the live definition, which may move on).
    await qi.sequelize.transaction(async (transaction) => {
      for (const statement of [
        'SET LOCAL statement_timeout = 0',
        'ALTER TABLE communications DROP COLUMN IF EXISTS search',
        `ALTER TABLE communications ADD COLUMN search tsvector GENERATED ALWAYS AS (CASE WHEN type = 'chat' THEN to_tsvector('${language}'::regconfig, coalesce(subject, '') || ' ' || body) END) STORED`,
        'CREATE INDEX communications_search_idx ON communications USING gin (search) WITH (gin_pending_list_limit = 256)',
        'ALTER TABLE communications ALTER COLUMN search SET STATISTICS 1000',
        'ANALYZE communications',
      ]) {
        await qi.sequelize.query(statement, { transaction });
      }
    });
  },
};
