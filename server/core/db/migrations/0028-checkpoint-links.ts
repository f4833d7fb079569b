import type { TMigration } from '../migration-type';

// Each checkpoint signs the one before it too (server/audit/audit-checkpoints.ts, form v2): a
// checkpoint deleted from between two others leaves the later one naming a head no longer stored.
// Rows signed before this (v1) name none.
export const checkpointLinks: TMigration = {
  name: '0028-checkpoint-links',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE audit_checkpoints
        ADD COLUMN version smallint NOT NULL DEFAULT 1,
        ADD COLUMN prev_event_id bigint,
        ADD COLUMN prev_event_hash text;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE audit_checkpoints DROP COLUMN version, DROP COLUMN prev_event_id, DROP COLUMN prev_event_hash;
    `);
  },
};
