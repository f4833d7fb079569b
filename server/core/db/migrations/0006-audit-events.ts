import type { TMigration } from '../migration-type';

// Who did what, when and from where. Append-only is enforced by the database, not by convention:
// UPDATE, DELETE and TRUNCATE raise. user_id has no foreign key on purpose: a cascading SET NULL
// would be an UPDATE, and the trail must outlive any change to users.
export const auditEvents: TMigration = {
  name: '0006-audit-events',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE audit_events (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        user_id integer,
        action text NOT NULL,
        subject text NOT NULL,
        detail jsonb NOT NULL DEFAULT '{}'::jsonb,
        ip text
      );
      CREATE INDEX audit_events_at_idx ON audit_events (at DESC, id DESC);
      CREATE INDEX audit_events_action_idx ON audit_events (action, at DESC, id DESC);
      CREATE INDEX audit_events_user_idx ON audit_events (user_id, at DESC, id DESC);

      CREATE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$;
      CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
        FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change();
      CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
        FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TABLE IF EXISTS audit_events;
      DROP FUNCTION IF EXISTS audit_events_refuse_change();
    `);
  },
};
