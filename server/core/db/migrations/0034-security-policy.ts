import type { TMigration } from '../migration-type';

// The firm's sign-in policy: one row (none means the defaults in server/auth/security-policy.ts:
// no second factor required, sessions as long as they ever lasted). A change to it is a change to who
// may get in, so the database writes its own row of the trail for it, whoever made it (the same
// trigger as the other protected settings, server/records/README.md "Records").
// A session deleted (signed out, revoked, ended by a director, expired and swept) or the policy
// changed is announced on the live feed (server/events/chat-events.ts), so every instance checks its
// open live streams at once rather than at its next periodic check.
export const securityPolicy: TMigration = {
  name: '0034-security-policy',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE security_policy (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        require_mfa text NOT NULL DEFAULT 'none' CHECK (require_mfa IN ('none', 'directors', 'everyone')),
        session_idle_minutes integer NOT NULL CHECK (session_idle_minutes BETWEEN 5 AND 10080),
        session_max_hours integer NOT NULL CHECK (session_max_hours BETWEEN 1 AND 168),
        updated_by integer REFERENCES users(id),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE CONSTRAINT TRIGGER security_policy_protected_change AFTER INSERT OR UPDATE OR DELETE ON security_policy
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
        EXECUTE FUNCTION audit_protected_change('singleton', 'except', '', 'settings.security');

      CREATE FUNCTION announce_sessions_changed() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, public, pg_temp AS $$
      BEGIN
        PERFORM pg_notify('firm_chat_changes', '{"sessions":true}');
        RETURN NULL;
      END $$;
      -- Only a statement that deleted a session is announced: each sign-in sweeps expired rows, most
      -- often none, and that must not send every instance to check its streams.
      CREATE FUNCTION announce_sessions_ended() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, public, pg_temp AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM ended) THEN PERFORM pg_notify('firm_chat_changes', '{"sessions":true}'); END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER sessions_ended_announced AFTER DELETE ON sessions
        REFERENCING OLD TABLE AS ended FOR EACH STATEMENT EXECUTE FUNCTION announce_sessions_ended();
      CREATE TRIGGER security_policy_announced AFTER INSERT OR UPDATE ON security_policy
        FOR EACH STATEMENT EXECUTE FUNCTION announce_sessions_changed();
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS sessions_ended_announced ON sessions;
      DROP TABLE IF EXISTS security_policy;
      DROP FUNCTION IF EXISTS announce_sessions_changed();
      DROP FUNCTION IF EXISTS announce_sessions_ended();
    `);
  },
};
