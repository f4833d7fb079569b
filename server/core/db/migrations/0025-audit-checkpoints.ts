import type { TMigration } from '../migration-type';

// The trail's head, signed with the firm's key from time to time and at every export
// (server/audit/audit-checkpoints.ts; server/decisions/0023-signing-key.md): a rewrite of the chain
// up to a checkpoint is found even when whoever made it recomputed every hash after it. One
// checkpoint per head, so instances signing at once make one. The request role may only read and
// append them (server/core/db/request-role.ts).
export const auditCheckpoints: TMigration = {
  name: '0025-audit-checkpoints',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE audit_checkpoints (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id bigint NOT NULL,
        event_hash text NOT NULL,
        at timestamptz NOT NULL,
        key_fingerprint text NOT NULL,
        signature text NOT NULL
      );
      CREATE UNIQUE INDEX audit_checkpoints_event_idx ON audit_checkpoints (event_id);
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP TABLE IF EXISTS audit_checkpoints');
  },
};
