import type { TMigration } from '../migration-type';

// Invitations (server/auth/README.md "Invitations"): a director names the person, the person sets their own
// password through a one-time link. Only the link token's SHA-256 is kept, so a copy of the database
// signs nobody up. One pending invitation per email: a new one replaces it (revoked_at).
// The users triggers of 0026 are made again with `user.accept` among the actions that name a new
// account's app event (0027's appEventId); the rest of their arguments is 0026's, unchanged.
const USER_COLUMNS = ['role', 'deactivated_at', 'password_hash', 'email'];
const userTriggers = (covering: string) => {
  const args = `'id', 'only', '${USER_COLUMNS.join(',')}', '${covering}'`;
  return `
  DROP TRIGGER IF EXISTS users_protected_change ON users;
  DROP TRIGGER IF EXISTS users_protected_update ON users;
  CREATE CONSTRAINT TRIGGER users_protected_change AFTER INSERT OR DELETE ON users DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION audit_protected_change(${args});
  CREATE CONSTRAINT TRIGGER users_protected_update AFTER UPDATE ON users DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN ((${USER_COLUMNS.map((c) => `OLD.${c}`).join(', ')}) IS DISTINCT FROM (${USER_COLUMNS.map((c) => `NEW.${c}`).join(', ')}))
    EXECUTE FUNCTION audit_protected_change(${args});`;
};
const BEFORE = 'user.add,user.role_change,user.deactivate,user.reactivate';

export const invitations: TMigration = {
  name: '0033-invitations',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE invitations (
        id serial PRIMARY KEY,
        email text NOT NULL CHECK (email = lower(email) AND char_length(email) <= 320),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        role text NOT NULL CHECK (role IN ('director', 'staff')),
        invited_by integer REFERENCES users(id),
        token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_user_id integer REFERENCES users(id),
        revoked_at timestamptz,
        CHECK (accepted_at IS NULL OR revoked_at IS NULL)
      );
      CREATE UNIQUE INDEX invitations_pending_email ON invitations (email) WHERE accepted_at IS NULL AND revoked_at IS NULL;
      ${userTriggers(`${BEFORE},user.accept`)}
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`DROP TABLE IF EXISTS invitations; ${userTriggers(BEFORE)}`);
  },
};
