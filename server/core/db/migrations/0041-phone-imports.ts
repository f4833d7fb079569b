import type { TMigration } from '../migration-type';

// History from the phone (server/imports/README.md "History from the phone"): a client's old WhatsApp
// chat, exported from a lawyer's phone, kept as chat records with status `imported`. The provider
// never carried them, so nothing that counts what the provider carried counts them: not unread, not
// the 24-hour window, not a conversation's reopening or its assignee's "new message". The triggers
// that count are the earlier migrations' own, each given one more condition (the function's text as
// PostgreSQL holds it, changed where its inbound rows are chosen; a change that does not take stops
// the migration).

const NOT_IMPORTED = " AND {r}.status IS DISTINCT FROM ''imported''";

/** Adds the condition after every `alias.direction = 'inbound'` of the function, or fails. */
const narrow = (fn: string, alias: string) => `
      DO $$
      DECLARE
        def text := pg_get_functiondef('${fn}'::regproc);
        narrowed text := replace(def, '${alias}.direction = ''inbound''', '${alias}.direction = ''inbound''${NOT_IMPORTED.replaceAll('{r}', alias)}');
      BEGIN
        IF narrowed = def THEN RAISE EXCEPTION '${fn} has no inbound condition on ${alias}'; END IF;
        EXECUTE narrowed;
      END $$;`;

/** As `narrow`, back. */
const widen = (fn: string, alias: string) => `
      DO $$ BEGIN
        EXECUTE replace(pg_get_functiondef('${fn}'::regproc), '${NOT_IMPORTED.replaceAll('{r}', alias)}', '');
      END $$;`;

const NARROWED: [string, string][] = [
  ['chat_threads_after_insert', 'n'],
  ['chat_threads_recompute', 'c'],
  ['chat_threads_count_inbound', 'c'],
  ['conversation_states_after_insert', 'r'],
];

export const phoneImports: TMigration = {
  name: '0041-phone-imports',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE communications DROP CONSTRAINT communications_status_check;
      ALTER TABLE communications ADD CONSTRAINT communications_status_check
        CHECK (status IN ('pending', 'sent', 'delivered', 'read', 'failed', 'imported'));
      -- One record per message of a client's chat, however many times (or in how many overlapping
      -- exports) it is imported: the key is the message's time, sender, content and repeat count.
      CREATE UNIQUE INDEX communications_imported_key ON communications (client_id, (metadata->'imported'->>'key'))
        WHERE status = 'imported';

      CREATE TABLE phone_imports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        created_by integer NOT NULL REFERENCES users(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        -- The export as uploaded, kept whole: the court bundle's exhibit of where the records came from.
        attachment_id integer NOT NULL UNIQUE REFERENCES attachments(id) ON DELETE CASCADE,
        file_name text NOT NULL,
        file_sha256 text NOT NULL CHECK (file_sha256 ~ '^[0-9a-f]{64}$'),
        summary jsonb NOT NULL,
        state text NOT NULL DEFAULT 'preview' CHECK (state IN ('preview', 'committed')),
        client_id integer REFERENCES clients(id) ON DELETE CASCADE,
        case_id integer REFERENCES cases(id) ON DELETE SET NULL,
        committed_by integer REFERENCES users(id),
        committed_at timestamptz,
        result jsonb,
        CHECK ((state = 'committed') = (client_id IS NOT NULL AND committed_at IS NOT NULL))
      );
      CREATE INDEX phone_imports_client ON phone_imports (client_id, committed_at DESC) WHERE state = 'committed';
      -- How far a commit has got, written beside its transaction (which shows nothing until it ends).
      CREATE TABLE phone_import_progress (
        import_id uuid PRIMARY KEY REFERENCES phone_imports(id) ON DELETE CASCADE,
        done integer NOT NULL,
        total integer NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      ${NARROWED.map(([fn, alias]) => narrow(fn, alias)).join('\n')}
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      ${NARROWED.map(([fn, alias]) => widen(fn, alias)).join('\n')}
      DROP TABLE IF EXISTS phone_import_progress;
      DROP TABLE IF EXISTS phone_imports;
      DROP INDEX IF EXISTS communications_imported_key;
      DELETE FROM communications WHERE status = 'imported';
      ALTER TABLE communications DROP CONSTRAINT communications_status_check;
      ALTER TABLE communications ADD CONSTRAINT communications_status_check
        CHECK (status IN ('pending', 'sent', 'delivered', 'read', 'failed'));
    `);
  },
};
