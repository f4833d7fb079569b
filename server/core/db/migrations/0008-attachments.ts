import type { TMigration } from '../migration-type';

// Files on chat records (README "Files"; server/decisions/0005-media-download-queue-on-the-attachment-row.md).
// The attachment row is also its download job: `pending` rows due at `next_attempt_at` are claimed
// with FOR UPDATE SKIP LOCKED and a lease (`locked_until`), so a job cut off by a crash is taken up
// again when its lease runs out and two instances never download one file at once. The bytes live
// in PostgreSQL, in 256 KB chunks, so every instance serves every file and a database backup holds
// them.
export const attachments: TMigration = {
  name: '0008-attachments',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE attachments (
        id serial PRIMARY KEY,
        -- NULL while an upload waits to be sent (pruned after a day if it never is).
        communication_id integer REFERENCES communications(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('image', 'video', 'audio', 'document', 'sticker')),
        provider_media_id text,
        mime_type text NOT NULL,
        file_name text,
        size bigint,
        -- hex sha256 of the stored bytes; the provider's announced hash is kept apart until checked.
        sha256 text,
        expected_sha256 text,
        state text NOT NULL CHECK (state IN ('pending', 'stored', 'failed')),
        error text,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        locked_until timestamptz,
        uploaded_by integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX attachments_communication_idx ON attachments (communication_id);
      CREATE INDEX attachments_due_idx ON attachments (next_attempt_at) WHERE state = 'pending';
      CREATE INDEX attachments_unsent_idx ON attachments (created_at) WHERE communication_id IS NULL;

      CREATE TABLE attachment_chunks (
        attachment_id integer NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
        seq integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (attachment_id, seq)
      );
      -- Photos, voice notes and PDFs are already compressed: storing them uncompressed (out of line)
      -- saves the CPU of a compression attempt that gains nothing.
      ALTER TABLE attachment_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP TABLE IF EXISTS attachment_chunks, attachments');
  },
};
