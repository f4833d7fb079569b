import type { TMigration } from '../migration-type';

// The walls' rule asks "which clients (cases) are restricted and the reader is not a member of" as
// one hashed set per statement; without an index that set is built by reading every client, about
// 7 ms a statement at 100,000 clients, on every inbox page, thread page and search, for everyone.
// Restricted subjects are few: a partial index holds just them, and the set costs their number.
export const restrictedSubjectsIndex: TMigration = {
  name: '0019-restricted-subjects-index',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE INDEX clients_restricted ON clients (id) WHERE restricted;
      CREATE INDEX cases_restricted ON cases (id) WHERE restricted;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP INDEX IF EXISTS clients_restricted; DROP INDEX IF EXISTS cases_restricted;');
  },
};
