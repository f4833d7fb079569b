import type { TMigration } from '../migration-type';

// Each checkpoint signs the one before it too (server/audit/audit-checkpoints.ts, form v2): a
// checkpoint deleted from between two others leaves the later one naming a head no longer stored.
// Rows signed before this (v1) name none. A head may hold more than one row: the request role may
// append a row nobody signed for a head to come, and the signer must still sign that head (the
// verifier finds the row that does not carry the firm's signature).
export const checkpointLinks: TMigration = {
  name: '0028-checkpoint-links',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE audit_checkpoints
        ADD COLUMN version smallint NOT NULL DEFAULT 1,
        ADD COLUMN prev_event_id bigint,
        ADD COLUMN prev_event_hash text;
      DROP INDEX audit_checkpoints_event_idx;
      CREATE INDEX audit_checkpoints_event_idx ON audit_checkpoints (event_id);
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE audit_checkpoints DROP COLUMN version, DROP COLUMN prev_event_id, DROP COLUMN prev_event_hash;
      DROP INDEX audit_checkpoints_event_idx;
      CREATE UNIQUE INDEX audit_checkpoints_event_idx ON audit_checkpoints (event_id);
    `);
  },
};
