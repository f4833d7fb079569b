import type { TMigration } from '../migration-type';

// rate-limiter-flexible's PostgreSQL store: limits hold across every instance on the database.
export const rateLimits: TMigration = {
  name: '0004-rate-limits',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE rate_limits (
        key varchar(255) PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      );
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP TABLE IF EXISTS rate_limits');
  },
};
