import type { TMigration } from '../migration-type';

// The webhook keeps the firm's numbers rather than reading them for every delivery
// (server/numbers/README.md "Several numbers"). Any change to them, by any instance or by hand, is
// announced on the live feed (server/events/chat-events.ts) so that every instance reads them again.
export const numberRoutesAnnounced: TMigration = {
  name: '0042-number-routes-announced',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE FUNCTION announce_numbers_changed() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, public, pg_temp AS $$
      BEGIN
        PERFORM pg_notify('firm_chat_changes', '{"numbers":true}');
        RETURN NULL;
      END $$;
      CREATE TRIGGER firm_numbers_announced AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON firm_numbers
        FOR EACH STATEMENT EXECUTE FUNCTION announce_numbers_changed();
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS firm_numbers_announced ON firm_numbers;
      DROP FUNCTION IF EXISTS announce_numbers_changed();
    `);
  },
};
