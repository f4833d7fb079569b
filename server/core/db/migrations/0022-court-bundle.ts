import type { TMigration } from '../migration-type';

// Verify a copy (README "Evidence exports") finds a file taken out of a court bundle, or any copy of
// a photo or document the firm holds, by its SHA-256: without this index every check of an unknown
// file read every attachment row.
export const courtBundle: TMigration = {
  name: '0022-court-bundle',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE INDEX attachments_stored_sha256 ON attachments (sha256) WHERE state = 'stored' AND erased_at IS NULL;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP INDEX IF EXISTS attachments_stored_sha256');
  },
};
