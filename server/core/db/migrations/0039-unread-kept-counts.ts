import type { TMigration } from '../migration-type';

// Each person's unread, kept (server/inbox/README.md "The badge, kept"). Schema `derived` holds what
// the server counts again from the records, so a backup leaves it out (it copies schema public) and a
// restored database starts with none: `unread_snap` (a reader's unread per conversation as of a
// snapshot), `unread_totals` (its sums and the snapshot's xmin), and `unread_changes`, where a
// conversation's inbound count or a read mark that changes is logged with its transaction's id
// (xid8: record ids are not commit-ordered; transaction ids against a snapshot's xmin are). A reader's
// badge is their totals corrected by what was logged since. What the log cannot say — a conversation
// removed (a relink), a read mark deleted — marks the totals stale in the same statement: counted in
// full until counted again. `unread_log.pruned_below`: the log holds nothing older.
export const unreadKeptCounts: TMigration = {
  name: '0039-unread-kept-counts',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE SCHEMA derived;
      CREATE TABLE derived.unread_changes (
        xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        thread_key text NOT NULL,
        -- The reader whose mark changed; NULL: the conversation's count, everyone's.
        user_id integer
      );
      CREATE INDEX unread_changes_xid ON derived.unread_changes (xid);
      CREATE TABLE derived.unread_log (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        pruned_below xid8 NOT NULL
      );
      INSERT INTO derived.unread_log (pruned_below) VALUES ('0');
      CREATE TABLE derived.unread_totals (
        -- No foreign keys into public: a restore empties public's tables, and these are only counts.
        user_id integer PRIMARY KEY,
        conversations integer NOT NULL,
        messages bigint NOT NULL,
        -- Changes by transactions from this id on may be missing from the snapshot.
        snap_xmin xid8 NOT NULL,
        stale boolean NOT NULL DEFAULT false,
        counted_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE derived.unread_snap (
        user_id integer NOT NULL,
        thread_key text NOT NULL,
        n integer NOT NULL CHECK (n > 0),
        PRIMARY KEY (user_id, thread_key)
      );

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

      CREATE FUNCTION derived.log_mark_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO derived.unread_changes (thread_key, user_id) VALUES (NEW.thread_key, NEW.user_id);
        IF TG_OP = 'UPDATE' AND (OLD.thread_key, OLD.user_id) IS DISTINCT FROM (NEW.thread_key, NEW.user_id) THEN
          INSERT INTO derived.unread_changes (thread_key, user_id) VALUES (OLD.thread_key, OLD.user_id);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER read_marks_set AFTER INSERT ON public.read_marks FOR EACH ROW
        EXECUTE FUNCTION derived.log_mark_change();
      CREATE TRIGGER read_marks_moved AFTER UPDATE ON public.read_marks FOR EACH ROW
        WHEN (NEW.read_count IS DISTINCT FROM OLD.read_count OR NEW.thread_key IS DISTINCT FROM OLD.thread_key
              OR NEW.user_id IS DISTINCT FROM OLD.user_id)
        EXECUTE FUNCTION derived.log_mark_change();

      CREATE FUNCTION derived.unread_stale_all() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM old_rows) THEN
          UPDATE derived.unread_totals SET stale = true WHERE NOT stale;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER chat_threads_removed AFTER DELETE ON public.chat_threads REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION derived.unread_stale_all();
      CREATE FUNCTION derived.unread_stale_readers() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE derived.unread_totals u SET stale = true WHERE NOT u.stale AND u.user_id IN (SELECT o.user_id FROM old_rows o);
        RETURN NULL;
      END $$;
      CREATE TRIGGER read_marks_removed AFTER DELETE ON public.read_marks REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION derived.unread_stale_readers();
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS read_marks_removed ON public.read_marks;
      DROP TRIGGER IF EXISTS chat_threads_removed ON public.chat_threads;
      DROP TRIGGER IF EXISTS read_marks_moved ON public.read_marks;
      DROP TRIGGER IF EXISTS read_marks_set ON public.read_marks;
      DROP TRIGGER IF EXISTS chat_threads_recounted ON public.chat_threads;
      DROP TRIGGER IF EXISTS chat_threads_counted ON public.chat_threads;
      DROP SCHEMA IF EXISTS derived CASCADE;
    `);
  },
};
