import type { TMigration } from '../migration-type';

// Resumable uploads (tus, `/api/uploads`). The offset and the bytes received so far live in
// PostgreSQL, not on one instance's disk: an upload cut by a dropped link or a restart resumes on
// whichever instance the browser reaches next. A part's row is written in the same transaction
// that moves the offset past it, so the offset never claims a byte that is not stored.
// When the last byte arrives the parts are copied into an ordinary attachment and removed; the
// upload row stays (pointing at it) until it expires, so a browser that missed the answer can ask
// again. Unfinished and finished uploads alike are pruned a day after they were created.
export const resumableUploads: TMigration = {
  name: '0015-resumable-uploads',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE resumable_uploads (
        id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{32}$'),
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        size bigint NOT NULL CHECK (size > 0),
        "offset" bigint NOT NULL DEFAULT 0 CHECK ("offset" >= 0 AND "offset" <= size),
        kind text NOT NULL CHECK (kind IN ('image', 'video', 'audio', 'document')),
        mime_type text NOT NULL,
        file_name text NOT NULL,
        -- As the browser sent it (tus Upload-Metadata), echoed back on HEAD.
        metadata jsonb NOT NULL DEFAULT '{}',
        -- Set when finished; the upload goes with its attachment (an unsent one is pruned after a day).
        attachment_id integer REFERENCES attachments(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX resumable_uploads_created_idx ON resumable_uploads (created_at);

      CREATE TABLE resumable_upload_parts (
        upload_id text NOT NULL REFERENCES resumable_uploads(id) ON DELETE CASCADE,
        start_offset bigint NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (upload_id, start_offset)
      );
      -- Media is already compressed (as attachment_chunks).
      ALTER TABLE resumable_upload_parts ALTER COLUMN data SET STORAGE EXTERNAL;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP TABLE IF EXISTS resumable_upload_parts, resumable_uploads');
  },
};
