import type { TMigration } from '../migration-type';

// Ethical walls (server/decisions/0016-ethical-walls-in-sql.md): a client or a case may be
// restricted to its members, and anyone may be screened from one. Members and screens name their
// subject by type and id (a client or a case) rather than by two foreign keys; the subject's own
// row going away takes them along (the triggers below), so nothing points at a stranger later.
export const ethicalWalls: TMigration = {
  name: '0018-ethical-walls',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE clients ADD COLUMN restricted boolean NOT NULL DEFAULT false;
      ALTER TABLE cases ADD COLUMN restricted boolean NOT NULL DEFAULT false;
      CREATE TABLE access_members (
        subject_type text NOT NULL CHECK (subject_type IN ('client', 'case')),
        subject_id integer NOT NULL,
        user_id integer NOT NULL REFERENCES users(id),
        added_by integer REFERENCES users(id),
        added_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (subject_type, subject_id, user_id)
      );
      CREATE INDEX access_members_user ON access_members (user_id);
      CREATE TABLE access_screens (
        subject_type text NOT NULL CHECK (subject_type IN ('client', 'case')),
        subject_id integer NOT NULL,
        user_id integer NOT NULL REFERENCES users(id),
        reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
        added_by integer REFERENCES users(id),
        added_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (subject_type, subject_id, user_id)
      );
      CREATE INDEX access_screens_user ON access_screens (user_id);
      -- The rule asks which restricted clients (cases) a reader is no member of: restricted ones are
      -- few, and without these every read would walk all clients to find them.
      CREATE INDEX clients_restricted ON clients (id) WHERE restricted;
      CREATE INDEX cases_restricted ON cases (id) WHERE restricted;
      CREATE FUNCTION access_forget_subject() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM access_members WHERE subject_type = TG_ARGV[0] AND subject_id = OLD.id;
        DELETE FROM access_screens WHERE subject_type = TG_ARGV[0] AND subject_id = OLD.id;
        RETURN OLD;
      END $$;
      CREATE TRIGGER clients_access_forget AFTER DELETE ON clients FOR EACH ROW EXECUTE FUNCTION access_forget_subject('client');
      CREATE TRIGGER cases_access_forget AFTER DELETE ON cases FOR EACH ROW EXECUTE FUNCTION access_forget_subject('case');
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS clients_access_forget ON clients;
      DROP TRIGGER IF EXISTS cases_access_forget ON cases;
      DROP FUNCTION IF EXISTS access_forget_subject();
      DROP INDEX IF EXISTS clients_restricted;
      DROP INDEX IF EXISTS cases_restricted;
      DROP TABLE IF EXISTS access_screens;
      DROP TABLE IF EXISTS access_members;
      ALTER TABLE cases DROP COLUMN IF EXISTS restricted;
      ALTER TABLE clients DROP COLUMN IF EXISTS restricted;
    `);
  },
};
