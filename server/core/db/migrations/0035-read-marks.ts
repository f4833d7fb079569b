import type { TMigration } from '../migration-type';

// Unread is per person (server/inbox/README.md "Unread"). chat_threads.inbound counts a conversation's
// inbound chat records (kept by the insert trigger; a summary row written without it — a rebuild or a
// relink's recompute — is counted from the records). A person's read mark holds the count they have
// read and the newest record id when they read it, so their unread is inbound − read_count: one row
// per conversation, no per-message work, except on a client with a case walled from them, where the
// walled records newer than the mark are taken off (read by case: few).
// A person's account starts with every existing conversation read; at this migration every person's
// marks are the firm's shared state (read through the record before each conversation's oldest unread).

// 0003's insert trigger; `counted`: also counting the inbound records (so its rows never take the count above).
const afterInsertFunction = (counted: boolean): string => `
      CREATE OR REPLACE FUNCTION chat_threads_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO chat_threads AS t (thread_key, client_id, peer_phone, last_id, last_at, unread, last_inbound_at, contact_name${counted ? ', inbound' : ''})
        SELECT n.key, max(n.client_id), CASE WHEN max(n.client_id) IS NULL THEN max(n.peer_phone) END,
               (array_agg(n.id ORDER BY n.created_at DESC, n.id DESC))[1], max(n.created_at),
               count(*) FILTER (WHERE n.direction = 'inbound' AND n.read_at IS NULL),
               max(coalesce(n.provider_timestamp, n.created_at)) FILTER (WHERE n.direction = 'inbound'),
               (array_agg(n.metadata->>'contact_name' ORDER BY n.created_at DESC) FILTER (WHERE n.metadata ? 'contact_name'))[1]${counted ? ",\n               count(*) FILTER (WHERE n.direction = 'inbound')" : ''}
        FROM (SELECT chat_thread_key(r.client_id, r.peer_phone) AS key, r.* FROM new_rows r WHERE r.type = 'chat') AS n
        GROUP BY n.key
        ORDER BY n.key -- one lock order for every writer: no deadlocks between concurrent batches
        ON CONFLICT (thread_key) DO UPDATE SET
          last_id = CASE WHEN (excluded.last_at, excluded.last_id) > (t.last_at, t.last_id) THEN excluded.last_id ELSE t.last_id END,
          last_at = greatest(t.last_at, excluded.last_at),
          unread = t.unread + excluded.unread,
          last_inbound_at = greatest(t.last_inbound_at, excluded.last_inbound_at),
          contact_name = coalesce(excluded.contact_name, t.contact_name)${counted ? ',\n          inbound = t.inbound + excluded.inbound' : ''};
        RETURN NULL;
      END $$;`;

export const readMarks: TMigration = {
  name: '0035-read-marks',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE chat_threads ADD COLUMN inbound integer;
      UPDATE chat_threads SET inbound = 0;
      UPDATE chat_threads t SET inbound = g.n FROM (
        SELECT chat_thread_key(c.client_id, c.peer_phone) AS key, count(*) AS n FROM communications c
        WHERE c.type = 'chat' AND c.direction = 'inbound' GROUP BY 1) g
      WHERE g.key = t.thread_key;
      ALTER TABLE chat_threads ALTER COLUMN inbound SET NOT NULL;

      CREATE FUNCTION chat_threads_count_inbound() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        SELECT count(*) INTO NEW.inbound FROM communications c
        WHERE c.type = 'chat' AND c.direction = 'inbound' AND CASE WHEN NEW.thread_key LIKE 'client-%'
          THEN c.client_id = substr(NEW.thread_key, 8)::integer
          ELSE c.client_id IS NULL AND c.peer_phone = substr(NEW.thread_key, 7) END;
        RETURN NEW;
      END $$;
      CREATE TRIGGER chat_threads_inbound BEFORE INSERT ON chat_threads FOR EACH ROW
        WHEN (NEW.inbound IS NULL) EXECUTE FUNCTION chat_threads_count_inbound();

      ${afterInsertFunction(true)}

      CREATE TABLE read_marks (
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        thread_key text NOT NULL,
        -- The conversation's inbound count when the person read it.
        read_count integer NOT NULL,
        -- The newest record id when they read it: records up to it are read for them.
        read_through_id integer NOT NULL,
        read_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, thread_key)
      );

      -- The shared state carried over: read through the record before each conversation's oldest unread.
      WITH inbound AS (
        SELECT chat_thread_key(c.client_id, c.peer_phone) AS key, c.id, c.read_at FROM communications c
        WHERE c.type = 'chat' AND c.direction = 'inbound'),
      firm AS (SELECT i.key, min(i.id) FILTER (WHERE i.read_at IS NULL) AS first_unread FROM inbound i GROUP BY i.key),
      marks AS (
        SELECT f.key, count(*) FILTER (WHERE f.first_unread IS NULL OR i.id < f.first_unread) AS read_count,
               coalesce(f.first_unread - 1, (SELECT coalesce(max(id), 0) FROM communications)) AS through
        FROM firm f JOIN inbound i ON i.key = f.key GROUP BY f.key, f.first_unread)
      INSERT INTO read_marks (user_id, thread_key, read_count, read_through_id)
      SELECT u.id, m.key, m.read_count, m.through FROM users u CROSS JOIN marks m;

      -- A new person's account starts with every conversation there is read.
      CREATE FUNCTION read_marks_for_new_user() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO read_marks (user_id, thread_key, read_count, read_through_id)
        SELECT NEW.id, t.thread_key, t.inbound, (SELECT coalesce(max(id), 0) FROM communications) FROM chat_threads t;
        RETURN NULL;
      END $$;
      CREATE TRIGGER users_read_marks AFTER INSERT ON users FOR EACH ROW EXECUTE FUNCTION read_marks_for_new_user();
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS users_read_marks ON users;
      DROP FUNCTION IF EXISTS read_marks_for_new_user();
      DROP TABLE IF EXISTS read_marks;
      ${afterInsertFunction(false)}
      DROP TRIGGER IF EXISTS chat_threads_inbound ON chat_threads;
      DROP FUNCTION IF EXISTS chat_threads_count_inbound();
      ALTER TABLE chat_threads DROP COLUMN IF EXISTS inbound;
    `);
  },
};
