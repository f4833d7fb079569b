import type { TMigration } from '../migration-type';

// Directors deactivate accounts in the app: a deactivated user keeps their row (their
// name stays on what they sent and on the audit trail) but cannot sign in.
// Settings tells a director when the provider last reached the webhook and whether it was let in:
// one row per outcome, upserted by the webhook route, so every instance and every restart sees the
// same answer. Only times, HTTP statuses and counts: never a body, a header or a secret.
export const userAdminAndWebhookDeliveries: TMigration = {
  name: '0013-user-admin-and-webhook-deliveries',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE users ADD COLUMN deactivated_at timestamptz;

      CREATE TABLE webhook_deliveries (
        outcome text PRIMARY KEY CHECK (outcome IN ('accepted', 'unauthorized', 'rejected', 'failed')),
        last_at timestamptz NOT NULL,
        last_status integer NOT NULL,
        count bigint NOT NULL DEFAULT 0
      );
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP TABLE IF EXISTS webhook_deliveries; ALTER TABLE users DROP COLUMN IF EXISTS deactivated_at');
  },
};
