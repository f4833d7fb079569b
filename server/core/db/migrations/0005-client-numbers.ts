import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';
import { QueryTypes } from 'sequelize';
import type { TMigration } from '../migration-type';

// A client has any number of chat numbers (E.164 digits), one primary. Inbound messages match on
// them: an exact number first, then the last 9 digits. Each client's phone becomes its
// primary number, read with libphonenumber in the firm's country (a national "07700 900789" was
// stored as 07700900789, which no provider can deliver to); one that cannot be read keeps its digits.
/** The number as this step read it (frozen here: the live reader has grown stricter since). */
function readStoredPhone(phone: string, defaultCountry: CountryCode | undefined): string | null {
  const text = phone.trim().replace(/^00/, '+');
  const parsed = text.startsWith('+') ? parsePhoneNumberFromString(text) : parsePhoneNumberFromString(text, defaultCountry);
  return parsed?.isPossible() ? parsed.number.slice(1) : null;
}

export const clientNumbers = (defaultCountry: CountryCode | undefined): TMigration => ({
  name: '0005-client-numbers',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE client_numbers (
        id serial PRIMARY KEY,
        client_id integer NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
        digits text NOT NULL CHECK (digits ~ '^[0-9]{6,15}$'),
        last9 text GENERATED ALWAYS AS (right(digits, 9)) STORED,
        "primary" boolean NOT NULL DEFAULT false,
        -- 'client': given on the client file (or when it was created); 'link': linked from the inbox,
        -- the only kind inbox.unlink may take away again.
        added_via text NOT NULL DEFAULT 'client' CHECK (added_via IN ('client', 'link')),
        added_by integer REFERENCES users(id) ON DELETE SET NULL,
        added_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (client_id, digits)
      );
      CREATE UNIQUE INDEX client_numbers_one_primary_idx ON client_numbers (client_id) WHERE "primary";
      CREATE INDEX client_numbers_digits_idx ON client_numbers (digits);
      CREATE INDEX client_numbers_last9_idx ON client_numbers (last9);
    `);
    const clients = await qi.sequelize.query<{ id: number; phone: string; phone_digits: string; created_at: Date }>(
      'SELECT id, phone, phone_digits, created_at FROM clients',
      { type: QueryTypes.SELECT },
    );
    await qi.sequelize.query(
      `INSERT INTO client_numbers (client_id, digits, "primary", added_at)
       SELECT client_id, digits, true, added_at FROM unnest($1::int[], $2::text[], $3::timestamptz[]) AS x(client_id, digits, added_at)`,
      {
        bind: [
          clients.map((c) => c.id),
          clients.map((c) => readStoredPhone(c.phone, defaultCountry) ?? c.phone_digits),
          clients.map((c) => c.created_at),
        ],
      },
    );
    await qi.sequelize.query(`
      DROP INDEX clients_phone_last9_idx;
      ALTER TABLE clients DROP COLUMN phone, DROP COLUMN phone_digits, DROP COLUMN phone_last9;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE clients ADD COLUMN phone text, ADD COLUMN phone_digits text, ADD COLUMN phone_last9 text;
      UPDATE clients c SET phone = '+' || n.digits, phone_digits = n.digits, phone_last9 = right(n.digits, 9)
      FROM client_numbers n WHERE n.client_id = c.id AND n."primary";
      ALTER TABLE clients ALTER COLUMN phone SET NOT NULL, ALTER COLUMN phone_digits SET NOT NULL, ALTER COLUMN phone_last9 SET NOT NULL;
      CREATE INDEX clients_phone_last9_idx ON clients (phone_last9);
      DROP TABLE client_numbers;
    `);
  },
});
