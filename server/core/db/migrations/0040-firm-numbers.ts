import type { TMigration } from '../migration-type';

// The firm's business numbers (server/numbers/README.md "Several numbers"). Number 1 is the one the
// configuration names (FIRM_PHONE, MESSAGING_API_KEY): its row is made here with no digits, and the
// server writes FIRM_PHONE's into it at every start. A number added later keeps its own provider key
// and webhook secret, sealed under a key derived from the signing key file (never the database's).
// Every record already stored went through number 1: the column's default ties them to it without
// rewriting a row (PostgreSQL keeps a constant default in the catalogue), so no trigger fires and no
// record's version moves.
export const firmNumbers: TMigration = {
  name: '0040-firm-numbers',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE firm_numbers (
        id serial PRIMARY KEY,
        digits text NOT NULL CHECK (digits ~ '^([1-9][0-9]{7,14})?$'),
        label text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 60),
        phone_number_id text CHECK (char_length(phone_number_id) BETWEEN 1 AND 64),
        provider_key_sealed text,
        webhook_secret_sealed text,
        active boolean NOT NULL DEFAULT true,
        created_by integer REFERENCES users(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX firm_numbers_digits ON firm_numbers (digits) WHERE active AND digits <> '';
      CREATE UNIQUE INDEX firm_numbers_phone_number_id ON firm_numbers (phone_number_id) WHERE active;
      INSERT INTO firm_numbers (id, digits, label) VALUES (1, '', 'Main number');
      SELECT setval(pg_get_serial_sequence('firm_numbers', 'id'), 1);
      ALTER TABLE communications ADD COLUMN firm_number_id integer NOT NULL DEFAULT 1 REFERENCES firm_numbers(id);
      ALTER TABLE scheduled_sends ADD COLUMN firm_number_id integer REFERENCES firm_numbers(id);
      -- A receipt kept before its send's record is stored applies only to a send of the number it came through.
      ALTER TABLE chat_receipts ADD COLUMN firm_number_id integer REFERENCES firm_numbers(id);
      -- Each number has its own approved templates at the provider: the catalogue kept so far is number 1's.
      ALTER TABLE provider_templates ADD COLUMN firm_number_id integer NOT NULL DEFAULT 1 REFERENCES firm_numbers(id);
      ALTER TABLE provider_templates DROP CONSTRAINT provider_templates_pkey;
      ALTER TABLE provider_templates ADD PRIMARY KEY (firm_number_id, name, language);
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE scheduled_sends DROP COLUMN IF EXISTS firm_number_id;
      ALTER TABLE chat_receipts DROP COLUMN IF EXISTS firm_number_id;
      ALTER TABLE provider_templates DROP CONSTRAINT provider_templates_pkey;
      DELETE FROM provider_templates WHERE firm_number_id <> 1;
      ALTER TABLE provider_templates DROP COLUMN firm_number_id;
      ALTER TABLE provider_templates ADD PRIMARY KEY (name, language);
      ALTER TABLE communications DROP COLUMN IF EXISTS firm_number_id;
      DROP TABLE IF EXISTS firm_numbers;
    `);
  },
};
