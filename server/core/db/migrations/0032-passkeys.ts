import type { TMigration } from '../migration-type';

// Passkeys (WebAuthn credentials) a person signs in with, and the challenges the server issued for
// them. Challenges live here, not in memory, so one issued by one instance is checked by another;
// each is taken (deleted) by the answer that uses it, so it is used once. The RP a challenge was
// issued for is kept beside it: the answer is checked against the site that asked.
export const passkeys: TMigration = {
  name: '0032-passkeys',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE passkeys (
        id serial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        credential_id text NOT NULL UNIQUE CHECK (char_length(credential_id) BETWEEN 1 AND 1400),
        public_key bytea NOT NULL,
        counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
        transports text[] NOT NULL DEFAULT '{}',
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      );
      CREATE INDEX passkeys_user_id_idx ON passkeys (user_id);

      CREATE TABLE passkey_challenges (
        challenge text PRIMARY KEY,
        purpose text NOT NULL CHECK (purpose IN ('register', 'authenticate')),
        user_id integer REFERENCES users(id) ON DELETE CASCADE,
        rp_id text NOT NULL,
        origin text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX passkey_challenges_expires_at_idx ON passkey_challenges (expires_at);
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP TABLE IF EXISTS passkey_challenges; DROP TABLE IF EXISTS passkeys;');
  },
};
