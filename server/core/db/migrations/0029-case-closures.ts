import type { TMigration } from '../migration-type';

// A case's closure starts its records' retention clock (server/records/README.md "Records"): one
// backdated, or a case inserted already closed, makes its records due for destruction early. So its
// status and closing time are watched like the other protected columns (0026, 0027): every change
// is the database's own `db.change`, naming the app's `case.status` event when there is one.
const ARGS = `'id', 'only', 'status,closed_at', 'case.status'`;

export const caseClosures: TMigration = {
  name: '0029-case-closures',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE CONSTRAINT TRIGGER cases_closure_insert AFTER INSERT ON cases DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.closed_at IS NOT NULL) EXECUTE FUNCTION audit_protected_change(${ARGS});
      CREATE CONSTRAINT TRIGGER cases_closure_update AFTER UPDATE OF status, closed_at ON cases DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN ((OLD.status, OLD.closed_at) IS DISTINCT FROM (NEW.status, NEW.closed_at))
        EXECUTE FUNCTION audit_protected_change(${ARGS});
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS cases_closure_insert ON cases;
      DROP TRIGGER IF EXISTS cases_closure_update ON cases;
    `);
  },
};
