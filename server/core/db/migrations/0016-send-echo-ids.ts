import type { TMigration } from '../migration-type';

// A browser that queued a send while offline sends it when it is back, perhaps after the tab was
// closed mid-request: its echo id (one per queued send, chosen by the browser) makes the second
// attempt find the first record instead of sending again. Unique per sender.
export const sendEchoIds: TMigration = {
  name: '0016-send-echo-ids',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE UNIQUE INDEX communications_sent_by_echo_id ON communications (sent_by, (metadata->>'echo_id'))
        WHERE metadata ? 'echo_id';
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP INDEX IF EXISTS communications_sent_by_echo_id');
  },
};
