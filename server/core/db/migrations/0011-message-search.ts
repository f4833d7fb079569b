import type { TMigration } from '../migration-type';

// Full-text search over every record's words: a generated tsvector kept by PostgreSQL on
// every insert and edit, with a GIN index; the language it was built for is remembered so a change
// of SEARCH_LANGUAGE rebuilds it (server/core/search-language.ts).
export const messageSearch = (language: string = 'english'): TMigration => ({
  name: '0011-message-search',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE communications ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('${language}'::regconfig, coalesce(subject, '') || ' ' || body)) STORED;
      CREATE INDEX communications_search_idx ON communications USING gin (search);
      CREATE TABLE search_settings (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), language text NOT NULL);
      INSERT INTO search_settings (language) VALUES ('${language}');
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('ALTER TABLE communications DROP COLUMN IF EXISTS search; DROP TABLE IF EXISTS search_settings');
  },
});
