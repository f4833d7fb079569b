import type { TMigration } from '../migration-type';

// The provider's approved templates, shared by every instance (synced from the provider, or the
// built-in set in demo mode), with the time of the last sync; and a client's opt-out.
export const templatesAndOptOuts: TMigration = {
  name: '0007-templates-and-opt-outs',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE provider_templates (
        name text NOT NULL,
        language text NOT NULL,
        status text NOT NULL,
        category text,
        body text NOT NULL DEFAULT '',
        param_count integer NOT NULL DEFAULT 0,
        components jsonb NOT NULL DEFAULT '[]'::jsonb,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (name, language)
      );
      -- One row: when the catalogue was last read from the provider.
      CREATE TABLE provider_template_sync (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        synced_at timestamptz NOT NULL
      );
      ALTER TABLE clients ADD COLUMN opted_out_at timestamptz, ADD COLUMN opt_out_source text;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE clients DROP COLUMN IF EXISTS opted_out_at, DROP COLUMN IF EXISTS opt_out_source;
      DROP TABLE IF EXISTS provider_template_sync, provider_templates;
    `);
  },
};
