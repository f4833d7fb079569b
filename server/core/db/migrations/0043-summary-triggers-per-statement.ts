import type { TMigration } from '../migration-type';

// A batch of deliveries upserts one inbox summary per conversation (0003), and each summary row
// fired two row triggers in turn: its activity passed on to the conversation's ownership row
// (0019) and its inbound count logged for the kept badge (0039) — two function calls and two
// statements per conversation, per batch (tests/bench/README.md "Ingest, part by part"). Here the
// same work is done once per statement, over the rows the statement inserted or updated. The
// badge's log is still written where a conversation's key or inbound count changed, and nowhere
// else: a key whose count is the same before and after needs no recount.
export const summaryTriggersPerStatement: TMigration = {
  name: '0043-summary-triggers-per-statement',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER chat_threads_conversation_activity ON chat_threads;
      DROP FUNCTION chat_threads_pass_activity();
      DROP TRIGGER chat_threads_counted ON public.chat_threads;
      DROP TRIGGER chat_threads_recounted ON public.chat_threads;
      DROP FUNCTION derived.log_thread_change();

      CREATE FUNCTION chat_threads_pass_activity() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversation_states s SET last_at = n.last_at, last_id = n.last_id FROM new_rows n
        WHERE s.thread_key = n.thread_key AND (s.last_at, s.last_id) IS DISTINCT FROM (n.last_at, n.last_id);
        RETURN NULL;
      END $$;
      CREATE TRIGGER chat_threads_activity_added AFTER INSERT ON chat_threads REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION chat_threads_pass_activity();
      CREATE TRIGGER chat_threads_activity_changed AFTER UPDATE ON chat_threads REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION chat_threads_pass_activity();

      CREATE FUNCTION derived.log_threads_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO derived.unread_changes (thread_key) SELECT n.thread_key FROM new_rows n;
        RETURN NULL;
      END $$;
      CREATE TRIGGER chat_threads_counted AFTER INSERT ON public.chat_threads REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION derived.log_threads_added();
      -- The old and new rows are not paired, so each side is matched by key: a new (key, count) the
      -- old rows lack, and an old key the new rows lack.
      CREATE FUNCTION derived.log_threads_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO derived.unread_changes (thread_key)
        SELECT n.thread_key FROM new_rows n
        WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.thread_key = n.thread_key AND o.inbound = n.inbound)
        UNION ALL
        SELECT o.thread_key FROM old_rows o WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.thread_key = o.thread_key);
        RETURN NULL;
      END $$;
      CREATE TRIGGER chat_threads_recounted AFTER UPDATE ON public.chat_threads REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION derived.log_threads_changed();
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS chat_threads_recounted ON public.chat_threads;
      DROP TRIGGER IF EXISTS chat_threads_counted ON public.chat_threads;
      DROP FUNCTION IF EXISTS derived.log_threads_changed();
      DROP FUNCTION IF EXISTS derived.log_threads_added();
      DROP TRIGGER IF EXISTS chat_threads_activity_changed ON chat_threads;
      DROP TRIGGER IF EXISTS chat_threads_activity_added ON chat_threads;
      DROP FUNCTION IF EXISTS chat_threads_pass_activity();

      CREATE FUNCTION chat_threads_pass_activity() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversation_states SET last_at = NEW.last_at, last_id = NEW.last_id
        WHERE thread_key = NEW.thread_key AND (last_at, last_id) IS DISTINCT FROM (NEW.last_at, NEW.last_id);
        RETURN NULL;
      END $$;
      CREATE TRIGGER chat_threads_conversation_activity AFTER INSERT OR UPDATE OF last_at, last_id ON chat_threads
        FOR EACH ROW EXECUTE FUNCTION chat_threads_pass_activity();
      CREATE FUNCTION derived.log_thread_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO derived.unread_changes (thread_key) VALUES (NEW.thread_key);
        IF TG_OP = 'UPDATE' AND OLD.thread_key IS DISTINCT FROM NEW.thread_key THEN
          INSERT INTO derived.unread_changes (thread_key) VALUES (OLD.thread_key);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER chat_threads_counted AFTER INSERT ON public.chat_threads FOR EACH ROW
        EXECUTE FUNCTION derived.log_thread_change();
      CREATE TRIGGER chat_threads_recounted AFTER UPDATE ON public.chat_threads FOR EACH ROW
        WHEN (NEW.inbound IS DISTINCT FROM OLD.inbound OR NEW.thread_key IS DISTINCT FROM OLD.thread_key)
        EXECUTE FUNCTION derived.log_thread_change();
    `);
  },
};
