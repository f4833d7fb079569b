import type { TMigration } from '../migration-type';

// Two-step sign-in (server/auth/README.md "Two-step sign-in"): a person's authenticator seed, kept
// encrypted (the key is derived from the signing key file, never stored here) and counted only once
// confirmed; the last time step a code was accepted for, so a code works once; recovery codes kept as
// keyed hashes, each used once; and the tickets a first step hands out for the second. The sessions'
// method CHECK gains every way of signing in this round brings, and a session remembers when its
// second factor was proven (for a later step-up).
export const secondFactors: TMigration = {
  name: '0031-second-factors',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE totp_factors (
        user_id integer PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        sealed_secret text NOT NULL CHECK (char_length(sealed_secret) <= 400),
        confirmed_at timestamptz,
        last_time_step bigint CHECK (last_time_step >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE recovery_codes (
        id serial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        code_hash text NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, code_hash)
      );

      CREATE TABLE sign_in_tickets (
        id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{64}$'),
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        first_method text NOT NULL CHECK (first_method IN ('password', 'oidc')),
        answers integer NOT NULL DEFAULT 0 CHECK (answers >= 0),
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX sign_in_tickets_expires_at_idx ON sign_in_tickets (expires_at);

      ALTER TABLE sessions DROP CONSTRAINT sessions_method_check;
      ALTER TABLE sessions ADD CONSTRAINT sessions_method_check
        CHECK (method IN ('password', 'totp', 'recovery_code', 'passkey', 'oidc'));
      ALTER TABLE sessions ADD COLUMN second_factor_at timestamptz;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TABLE IF EXISTS sign_in_tickets;
      DROP TABLE IF EXISTS recovery_codes;
      DROP TABLE IF EXISTS totp_factors;
      ALTER TABLE sessions DROP COLUMN IF EXISTS second_factor_at;
      DELETE FROM sessions WHERE method <> 'password';
      ALTER TABLE sessions DROP CONSTRAINT sessions_method_check;
      ALTER TABLE sessions ADD CONSTRAINT sessions_method_check CHECK (method IN ('password'));
    `);
  },
};
