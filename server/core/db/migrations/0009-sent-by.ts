import type { TMigration } from '../migration-type';

// Who sent each outbound record (server/decisions/0012-append-only-audit-trail.md). NULL for
// records no person of the firm sent from this app: echoes from the firm's phone, inbound messages,
// and outbound records written before this column existed.
export const sentBy: TMigration = {
  name: '0009-sent-by',
  async up({ context: qi }) {
    await qi.sequelize.query('ALTER TABLE communications ADD COLUMN sent_by integer REFERENCES users(id)');
  },
  async down({ context: qi }) {
    await qi.sequelize.query('ALTER TABLE communications DROP COLUMN IF EXISTS sent_by');
  },
};
