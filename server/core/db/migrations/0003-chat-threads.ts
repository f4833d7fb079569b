import type { TMigration } from '../migration-type';

/** Rebuilds every summary row from communications (the backfill; also after bulk loads). */
export const REBUILD_CHAT_THREADS_SQL = `
      DELETE FROM chat_threads;
      INSERT INTO chat_threads (thread_key, client_id, peer_phone, last_id, last_at, unread, last_inbound_at, contact_name)
      SELECT chat_thread_key(c.client_id, c.peer_phone), max(c.client_id),
             CASE WHEN max(c.client_id) IS NULL THEN max(c.peer_phone) END,
             (array_agg(c.id ORDER BY c.created_at DESC, c.id DESC))[1], max(c.created_at),
             count(*) FILTER (WHERE c.direction = 'inbound' AND c.read_at IS NULL),
             max(coalesce(c.provider_timestamp, c.created_at)) FILTER (WHERE c.direction = 'inbound'),
             (array_agg(c.metadata->>'contact_name' ORDER BY c.created_at DESC) FILTER (WHERE c.metadata ? 'contact_name'))[1]
      FROM communications c WHERE c.type = 'chat'
      GROUP BY chat_thread_key(c.client_id, c.peer_phone);`;

// A small summary row per conversation, kept by a trigger in the same transaction as every write
// to communications, so the inbox list reads ~100 rows instead of scanning every chat record.
export const chatThreads: TMigration = {
  name: '0003-chat-threads',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE FUNCTION chat_thread_key(client_id integer, peer_phone text) RETURNS text
        LANGUAGE sql IMMUTABLE AS $$
          SELECT CASE WHEN client_id IS NOT NULL THEN 'client-' || client_id ELSE 'phone-' || coalesce(peer_phone, '') END
        $$;

      CREATE TABLE chat_threads (
        thread_key text PRIMARY KEY,
        client_id integer,
        peer_phone text,
        last_id integer NOT NULL,
        last_at timestamptz NOT NULL,
        unread integer NOT NULL DEFAULT 0,
        last_inbound_at timestamptz,
        contact_name text
      );
      CREATE INDEX chat_threads_recent_idx ON chat_threads (last_at DESC, last_id DESC);

      -- Rebuilds one conversation's row from its records (after a relink: rare).
      CREATE FUNCTION chat_threads_recompute(key text) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM chat_threads WHERE thread_key = key;
        INSERT INTO chat_threads (thread_key, client_id, peer_phone, last_id, last_at, unread, last_inbound_at, contact_name)
        SELECT key, max(c.client_id), CASE WHEN max(c.client_id) IS NULL THEN max(c.peer_phone) END,
               (array_agg(c.id ORDER BY c.created_at DESC, c.id DESC))[1], max(c.created_at),
               count(*) FILTER (WHERE c.direction = 'inbound' AND c.read_at IS NULL),
               max(coalesce(c.provider_timestamp, c.created_at)) FILTER (WHERE c.direction = 'inbound'),
               (array_agg(c.metadata->>'contact_name' ORDER BY c.created_at DESC) FILTER (WHERE c.metadata ? 'contact_name'))[1]
        FROM communications c
        WHERE c.type = 'chat' AND CASE WHEN key LIKE 'client-%'
          THEN c.client_id = substr(key, 8)::integer
          ELSE c.client_id IS NULL AND c.peer_phone = substr(key, 7) END
        HAVING count(*) > 0;
      END $$;

      -- Inserts: a statement-level trigger with a transition table does one set-based upsert per
      -- statement, so a group-committed batch costs one summary write per conversation, not per row.
      CREATE FUNCTION chat_threads_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO chat_threads AS t (thread_key, client_id, peer_phone, last_id, last_at, unread, last_inbound_at, contact_name)
        SELECT n.key, max(n.client_id), CASE WHEN max(n.client_id) IS NULL THEN max(n.peer_phone) END,
               (array_agg(n.id ORDER BY n.created_at DESC, n.id DESC))[1], max(n.created_at),
               count(*) FILTER (WHERE n.direction = 'inbound' AND n.read_at IS NULL),
               max(coalesce(n.provider_timestamp, n.created_at)) FILTER (WHERE n.direction = 'inbound'),
               (array_agg(n.metadata->>'contact_name' ORDER BY n.created_at DESC) FILTER (WHERE n.metadata ? 'contact_name'))[1]
        FROM (SELECT chat_thread_key(r.client_id, r.peer_phone) AS key, r.* FROM new_rows r WHERE r.type = 'chat') AS n
        GROUP BY n.key
        ORDER BY n.key -- one lock order for every writer: no deadlocks between concurrent batches
        ON CONFLICT (thread_key) DO UPDATE SET
          last_id = CASE WHEN (excluded.last_at, excluded.last_id) > (t.last_at, t.last_id) THEN excluded.last_id ELSE t.last_id END,
          last_at = greatest(t.last_at, excluded.last_at),
          unread = t.unread + excluded.unread,
          last_inbound_at = greatest(t.last_inbound_at, excluded.last_inbound_at),
          contact_name = coalesce(excluded.contact_name, t.contact_name);
        RETURN NULL;
      END $$;

      -- Row-level update triggers with column lists and WHEN conditions: a receipt changing a
      -- status touches none of these columns, so the hottest UPDATE fires no trigger at all.
      CREATE FUNCTION chat_threads_read_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE chat_threads SET unread = greatest(unread + CASE WHEN NEW.read_at IS NULL THEN 1 ELSE -1 END, 0)
        WHERE thread_key = chat_thread_key(NEW.client_id, NEW.peer_phone);
        RETURN NULL;
      END $$;

      CREATE FUNCTION chat_threads_moved() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM chat_threads_recompute(k)
        FROM (VALUES (chat_thread_key(OLD.client_id, OLD.peer_phone)), (chat_thread_key(NEW.client_id, NEW.peer_phone))) AS v(k)
        ORDER BY k;
        RETURN NULL;
      END $$;

      CREATE TRIGGER communications_chat_threads_insert
        AFTER INSERT ON communications REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION chat_threads_after_insert();
      CREATE TRIGGER communications_chat_threads_read
        AFTER UPDATE OF read_at ON communications FOR EACH ROW
        WHEN (NEW.type = 'chat' AND NEW.direction = 'inbound' AND (OLD.read_at IS NULL) <> (NEW.read_at IS NULL)
              AND OLD.client_id IS NOT DISTINCT FROM NEW.client_id AND OLD.peer_phone IS NOT DISTINCT FROM NEW.peer_phone)
        EXECUTE FUNCTION chat_threads_read_changed();
      CREATE TRIGGER communications_chat_threads_move
        AFTER UPDATE OF client_id, peer_phone ON communications FOR EACH ROW
        WHEN (NEW.type = 'chat' AND (OLD.client_id IS DISTINCT FROM NEW.client_id OR OLD.peer_phone IS DISTINCT FROM NEW.peer_phone))
        EXECUTE FUNCTION chat_threads_moved();

      ${REBUILD_CHAT_THREADS_SQL}
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS communications_chat_threads_insert ON communications;
      DROP TRIGGER IF EXISTS communications_chat_threads_read ON communications;
      DROP TRIGGER IF EXISTS communications_chat_threads_move ON communications;
      DROP FUNCTION IF EXISTS chat_threads_after_insert();
      DROP FUNCTION IF EXISTS chat_threads_read_changed();
      DROP FUNCTION IF EXISTS chat_threads_moved();
      DROP FUNCTION IF EXISTS chat_threads_recompute(text);
      DROP TABLE IF EXISTS chat_threads;
      DROP FUNCTION IF EXISTS chat_thread_key(integer, text);
    `);
  },
};
