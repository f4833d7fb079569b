import type { TMigration } from '../migration-type';

// What decides who sees a message, and when its case's records may be destroyed, is watched like the
// other protected columns (0026, 0027): every change is the database's own `db.change`, naming the
// app's event when there is one (server/records/README.md "Records").
// - A case's closure starts its records' retention clock: one backdated, or a case inserted already
//   closed, makes them due early. Its client decides its walls: a case moved to another client leaves
//   the first one's wall.
// - A message's client and case decide its walls the same way (linking a number, unlinking it and
//   refiling move them, each with its event). Messages are erased in place, never deleted: the
//   request role loses DELETE on them (server/core/db/request-role.ts takes it again at each start).
const CASE_ARGS = `'id', 'only', 'status,closed_at,client_id', 'case.status'`;
const MESSAGE_ARGS = `'id', 'only', 'client_id,case_id', 'inbox.link,inbox.unlink,communication.refile'`;

export const caseClosures: TMigration = {
  name: '0029-case-closures',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE CONSTRAINT TRIGGER cases_closure_insert AFTER INSERT ON cases DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.closed_at IS NOT NULL) EXECUTE FUNCTION audit_protected_change(${CASE_ARGS});
      CREATE CONSTRAINT TRIGGER cases_closure_update AFTER UPDATE OF status, closed_at, client_id ON cases DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN ((OLD.status, OLD.closed_at, OLD.client_id) IS DISTINCT FROM (NEW.status, NEW.closed_at, NEW.client_id))
        EXECUTE FUNCTION audit_protected_change(${CASE_ARGS});
      CREATE CONSTRAINT TRIGGER communications_moved AFTER UPDATE OF client_id, case_id ON communications DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN ((OLD.client_id, OLD.case_id) IS DISTINCT FROM (NEW.client_id, NEW.case_id))
        EXECUTE FUNCTION audit_protected_change(${MESSAGE_ARGS});
      CREATE CONSTRAINT TRIGGER communications_deleted AFTER DELETE ON communications DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION audit_protected_change(${MESSAGE_ARGS});
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS cases_closure_insert ON cases;
      DROP TRIGGER IF EXISTS cases_closure_update ON cases;
      DROP TRIGGER IF EXISTS communications_moved ON communications;
      DROP TRIGGER IF EXISTS communications_deleted ON communications;
    `);
  },
};
