import type { TMigration } from '../migration-type';

export const initialSchema: TMigration = {
  name: '0001-initial-schema',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        email text NOT NULL UNIQUE CHECK (email = lower(email)),
        name text NOT NULL,
        role text NOT NULL CHECK (role IN ('director', 'staff')),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      -- id is a keyed hash of the cookie token, so a leaked table grants no session.
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX sessions_user_id_idx ON sessions (user_id);
      CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

      CREATE TABLE clients (
        id serial PRIMARY KEY,
        name text NOT NULL,
        phone text NOT NULL,
        phone_digits text NOT NULL,
        phone_last9 text NOT NULL,
        email text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX clients_phone_last9_idx ON clients (phone_last9);
      CREATE INDEX clients_name_idx ON clients (lower(name));

      CREATE TABLE cases (
        id serial PRIMARY KEY,
        client_id integer NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
        reference text NOT NULL UNIQUE,
        title text NOT NULL,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX cases_client_id_idx ON cases (client_id);

      CREATE TABLE communications (
        id serial PRIMARY KEY,
        type text NOT NULL CHECK (type IN ('chat', 'note', 'call', 'email')),
        direction text CHECK (direction IN ('inbound', 'outbound')),
        subject text,
        body text NOT NULL DEFAULT '',
        status text CHECK (status IN ('pending', 'sent', 'delivered', 'read', 'failed')),
        error text,
        client_id integer REFERENCES clients(id) ON DELETE SET NULL,
        case_id integer REFERENCES cases(id) ON DELETE SET NULL,
        peer_phone text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        -- Receipt history of an outbound chat: {"sent": {"at": …}, "delivered": {"at": …}, "failed": {"at": …, "code": …}}.
        -- Kept on the record itself so one UPDATE writes both the status and its history.
        receipts jsonb NOT NULL DEFAULT '{}'::jsonb,
        provider_timestamp timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      ) WITH (fillfactor = 85); -- room on each page so receipt status updates stay HOT (no index writes)
      -- Webhook retries and concurrent duplicate deliveries collide here (INSERT ... ON CONFLICT DO NOTHING).
      CREATE UNIQUE INDEX communications_chat_msg_id_key ON communications ((metadata->>'chat_msg_id'));
      CREATE INDEX communications_client_time_idx ON communications (client_id, created_at DESC, id DESC);
      CREATE INDEX communications_case_time_idx ON communications (case_id, created_at DESC, id DESC);
      CREATE INDEX communications_peer_time_idx ON communications (peer_phone, created_at DESC, id DESC);

      -- Receipts whose record is not stored yet, keyed by provider message id: the provider can report
      -- before its own send response has been saved. They are applied (and removed) when the id is stored.
      CREATE TABLE chat_receipts (
        chat_msg_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('sent', 'delivered', 'read', 'failed')),
        provider_timestamp timestamptz,
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chat_msg_id, status)
      );
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP TABLE IF EXISTS chat_receipts, communications, cases, clients, sessions, users CASCADE');
  },
};
