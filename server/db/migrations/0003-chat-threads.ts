import type { TMigration } from '../migrate';

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

      CREATE FUNCTION chat_threads_track() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.type <> 'chat' THEN RETURN NULL; END IF;
        IF TG_OP = 'INSERT' THEN
          INSERT INTO chat_threads AS t (thread_key, client_id, peer_phone, last_id, last_at, unread, last_inbound_at, contact_name)
          VALUES (chat_thread_key(NEW.client_id, NEW.peer_phone), NEW.client_id,
                  CASE WHEN NEW.client_id IS NULL THEN NEW.peer_phone END, NEW.id, NEW.created_at,
                  CASE WHEN NEW.direction = 'inbound' AND NEW.read_at IS NULL THEN 1 ELSE 0 END,
                  CASE WHEN NEW.direction = 'inbound' THEN coalesce(NEW.provider_timestamp, NEW.created_at) END,
                  NEW.metadata->>'contact_name')
          ON CONFLICT (thread_key) DO UPDATE SET
            last_id = CASE WHEN (excluded.last_at, excluded.last_id) > (t.last_at, t.last_id) THEN excluded.last_id ELSE t.last_id END,
            last_at = greatest(t.last_at, excluded.last_at),
            unread = t.unread + excluded.unread,
            last_inbound_at = greatest(t.last_inbound_at, excluded.last_inbound_at),
            contact_name = coalesce(excluded.contact_name, t.contact_name);
        ELSIF OLD.client_id IS DISTINCT FROM NEW.client_id OR OLD.peer_phone IS DISTINCT FROM NEW.peer_phone THEN
          PERFORM chat_threads_recompute(chat_thread_key(OLD.client_id, OLD.peer_phone));
          PERFORM chat_threads_recompute(chat_thread_key(NEW.client_id, NEW.peer_phone));
        ELSIF NEW.direction = 'inbound' AND (OLD.read_at IS NULL) <> (NEW.read_at IS NULL) THEN
          UPDATE chat_threads SET unread = greatest(unread + CASE WHEN NEW.read_at IS NULL THEN 1 ELSE -1 END, 0)
          WHERE thread_key = chat_thread_key(NEW.client_id, NEW.peer_phone);
        END IF;
        RETURN NULL;
      END $$;

      CREATE TRIGGER communications_chat_threads
        AFTER INSERT OR UPDATE OF client_id, peer_phone, read_at ON communications
        FOR EACH ROW EXECUTE FUNCTION chat_threads_track();

      INSERT INTO chat_threads (thread_key, client_id, peer_phone, last_id, last_at, unread, last_inbound_at, contact_name)
      SELECT chat_thread_key(c.client_id, c.peer_phone), max(c.client_id),
             CASE WHEN max(c.client_id) IS NULL THEN max(c.peer_phone) END,
             (array_agg(c.id ORDER BY c.created_at DESC, c.id DESC))[1], max(c.created_at),
             count(*) FILTER (WHERE c.direction = 'inbound' AND c.read_at IS NULL),
             max(coalesce(c.provider_timestamp, c.created_at)) FILTER (WHERE c.direction = 'inbound'),
             (array_agg(c.metadata->>'contact_name' ORDER BY c.created_at DESC) FILTER (WHERE c.metadata ? 'contact_name'))[1]
      FROM communications c WHERE c.type = 'chat'
      GROUP BY chat_thread_key(c.client_id, c.peer_phone);
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS communications_chat_threads ON communications;
      DROP FUNCTION IF EXISTS chat_threads_track();
      DROP FUNCTION IF EXISTS chat_threads_recompute(text);
      DROP TABLE IF EXISTS chat_threads;
      DROP FUNCTION IF EXISTS chat_thread_key(integer, text);
    `);
  },
};
