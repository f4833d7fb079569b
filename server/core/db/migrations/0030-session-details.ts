import type { TMigration } from '../migration-type';

// Sessions people can see and end: each gets a public id to name it by (the
// primary key is the cookie's keyed hash and never leaves the server), when it was last used, where
// from, and how its person signed in. The method's CHECK is a named constraint so a later way of
// signing in extends it (DROP and ADD it again); rows from before this say 'password', the only way
// there was. ADD COLUMN keeps the table's grants to the request role.
export const sessionDetails: TMigration = {
  name: '0030-session-details',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE sessions
        ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid(),
        ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN ip text,
        ADD COLUMN user_agent text CHECK (char_length(user_agent) <= 400),
        ADD COLUMN method text NOT NULL DEFAULT 'password';
      ALTER TABLE sessions ADD CONSTRAINT sessions_public_id_key UNIQUE (public_id);
      ALTER TABLE sessions ADD CONSTRAINT sessions_method_check CHECK (method IN ('password'));
      UPDATE sessions SET last_seen_at = created_at;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE sessions DROP COLUMN IF EXISTS public_id, DROP COLUMN IF EXISTS last_seen_at, DROP COLUMN IF EXISTS ip,
        DROP COLUMN IF EXISTS user_agent, DROP COLUMN IF EXISTS method;
    `);
  },
};
