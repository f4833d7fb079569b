import type { TMigration } from '../migration-type';

// An opt-out belongs to the number that asked, not to a client: a number may be shared by a family
// (several clients) or belong to no client yet, and a STOP from it must stop every send to it either
// way. It also covers the other spellings of that number in its own country (the same calling code
// and last 9 digits: WhatsApp writes some countries' mobiles with or without a 9 or a 1 after it). Opt-outs already recorded on clients move to each of that client's numbers.
// Pending outbound records are looked up by number (a receipt adopting an unknown-outcome send) and
// by age (the sweeper of abandoned sends): a partial index keeps both to the few pending rows.
export const numberOptOuts: TMigration = {
  name: '0014-number-opt-outs',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE number_opt_outs (
        digits text PRIMARY KEY CHECK (digits ~ '^[0-9]{1,20}$'),
        last9 text GENERATED ALWAYS AS (right(digits, 9)) STORED,
        -- The country calling code (read by the app): other spellings are matched only within it.
        calling_code text,
        at timestamptz NOT NULL,
        source text NOT NULL
      );
      CREATE INDEX number_opt_outs_last9 ON number_opt_outs (last9);
      INSERT INTO number_opt_outs (digits, at, source)
      SELECT n.digits, min(c.opted_out_at), min(coalesce(c.opt_out_source, 'recorded on the client'))
      FROM clients c JOIN client_numbers n ON n.client_id = c.id
      WHERE c.opted_out_at IS NOT NULL
      GROUP BY n.digits
      ON CONFLICT DO NOTHING;
      ALTER TABLE clients DROP COLUMN opted_out_at, DROP COLUMN opt_out_source;

      CREATE INDEX communications_pending_outbound ON communications (peer_phone, created_at)
        WHERE direction = 'outbound' AND status = 'pending';
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP INDEX IF EXISTS communications_pending_outbound;
      ALTER TABLE clients ADD COLUMN opted_out_at timestamptz, ADD COLUMN opt_out_source text;
      UPDATE clients c SET opted_out_at = o.at, opt_out_source = o.source
      FROM client_numbers n JOIN number_opt_outs o ON o.digits = n.digits WHERE n.client_id = c.id;
      DROP TABLE IF EXISTS number_opt_outs;
    `);
  },
};
