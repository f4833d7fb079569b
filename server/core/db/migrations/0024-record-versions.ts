import type { TMigration } from '../migration-type';

// A record's version, kept by PostgreSQL: every UPDATE of a communications row, whoever writes it
// and however (one row, or a set-based receipt statement), adds one, so a browser given two
// snapshots of a record (a live change, a mutation's answer) keeps the later one whatever order
// they came in (server/decisions/0007-change-feed-through-listen-notify.md).
// A file's shown state (downloaded, failed, erased, claimed by a send) is part of its record as
// the browser sees it, so a change to it bumps the record too; a download's lease and tries
// (`attempts`, `locked_until`) are not shown and bump nothing.
export const recordVersions: TMigration = {
  name: '0024-record-versions',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE communications ADD COLUMN version bigint NOT NULL DEFAULT 1;

      CREATE FUNCTION communications_next_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.version := OLD.version + 1;
        RETURN NEW;
      END $$;
      CREATE TRIGGER communications_version BEFORE UPDATE ON communications
        FOR EACH ROW EXECUTE FUNCTION communications_next_version();

      CREATE FUNCTION attachments_bump_record() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The SET is only what is written: the trigger above makes it OLD.version + 1.
        UPDATE communications SET version = version + 1
        WHERE id IN (NEW.communication_id, OLD.communication_id);
        RETURN NULL;
      END $$;
      CREATE TRIGGER attachments_record_version
        AFTER UPDATE OF communication_id, kind, mime_type, file_name, size, state, error, next_attempt_at, erased_at ON attachments
        FOR EACH ROW
        WHEN (coalesce(NEW.communication_id, OLD.communication_id) IS NOT NULL
              AND (OLD.communication_id, OLD.kind, OLD.mime_type, OLD.file_name, OLD.size, OLD.state, OLD.error, OLD.next_attempt_at, OLD.erased_at)
                  IS DISTINCT FROM
                  (NEW.communication_id, NEW.kind, NEW.mime_type, NEW.file_name, NEW.size, NEW.state, NEW.error, NEW.next_attempt_at, NEW.erased_at))
        EXECUTE FUNCTION attachments_bump_record();
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS attachments_record_version ON attachments;
      DROP FUNCTION IF EXISTS attachments_bump_record();
      DROP TRIGGER IF EXISTS communications_version ON communications;
      DROP FUNCTION IF EXISTS communications_next_version();
      ALTER TABLE communications DROP COLUMN IF EXISTS version;
    `);
  },
};
