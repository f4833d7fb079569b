import type { TMigration } from '../migration-type';

// Unread counts: an inbound chat record is unread until someone opens its thread.
export const readState: TMigration = {
  name: '0002-read-state',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE communications ADD COLUMN read_at timestamptz;
      -- Existing inbound records predate read tracking: count them as read.
      UPDATE communications SET read_at = created_at WHERE direction = 'inbound';
      CREATE INDEX communications_unread_idx ON communications (client_id, peer_phone)
        WHERE direction = 'inbound' AND read_at IS NULL;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP INDEX IF EXISTS communications_unread_idx;
      ALTER TABLE communications DROP COLUMN IF EXISTS read_at;
    `);
  },
};
