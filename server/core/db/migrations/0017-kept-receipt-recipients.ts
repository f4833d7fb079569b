import type { TMigration } from '../migration-type';

// A receipt kept for an id no record has yet also keeps whom the message went to: when a send's
// answer is lost after its receipts came, the receipts waiting here are how it learns its id.
export const keptReceiptRecipients: TMigration = {
  name: '0017-kept-receipt-recipients',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE chat_receipts ADD COLUMN recipient_digits text;
      CREATE INDEX chat_receipts_recipient ON chat_receipts (recipient_digits) WHERE recipient_digits IS NOT NULL;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('ALTER TABLE chat_receipts DROP COLUMN IF EXISTS recipient_digits');
  },
};
