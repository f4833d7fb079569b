import type { TMigration } from '../migration-type';

// A follow-up that notices replies (README "Scheduled sends"): a scheduled send marked
// `unless_replied` is not sent if the client wrote after it was scheduled (a message of theirs
// stored after the row's created_at), and says so on the row. The firm's automatic replies never are.
export const unlessReplied: TMigration = {
  name: '0023-unless-replied',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE scheduled_sends ADD COLUMN unless_replied boolean NOT NULL DEFAULT false;
      ALTER TABLE scheduled_sends ADD CONSTRAINT scheduled_sends_auto_reply_not_unless_replied
        CHECK (kind <> 'auto_reply' OR NOT unless_replied);
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('ALTER TABLE scheduled_sends DROP COLUMN IF EXISTS unless_replied');
  },
};
