import type { TMigration } from '../migration-type';

// Ownership (server/decisions/0017-conversation-timers-on-their-row.md): who handles each
// conversation, whether it is open, done or snoozed, internal notes beside its messages and the
// notifications that tell people. A conversation's row lives apart from chat_threads, which its
// trigger deletes and rebuilds when records move; a conversation with no row is open and unassigned.
// The ethical walls' rule (server/core/visibility.ts) as it stood when this migration was written:
// a frozen copy, as a migration may import nothing of the product's (0004).
const VISIBLE = (viewer: string, clientId: string, caseId: string): string =>
  `(${visibleSubject(viewer, 'client', clientId, 'clients')} AND ${visibleSubject(viewer, 'case', caseId, 'cases')})`;
const visibleSubject = (viewer: string, type: string, id: string, table: string): string =>
  id === 'NULL'
    ? 'true'
    : `(${id} IS NULL OR (
    NOT EXISTS (SELECT 1 FROM access_screens ws WHERE ws.subject_type = '${type}' AND ws.subject_id = ${id} AND ws.user_id = ${viewer})
    AND NOT EXISTS (SELECT 1 FROM ${table} wr WHERE wr.id = ${id} AND wr.restricted
      AND NOT EXISTS (SELECT 1 FROM access_members wm WHERE wm.subject_type = '${type}' AND wm.subject_id = wr.id AND wm.user_id = ${viewer}))))`;

export const ownership: TMigration = {
  name: '0019-ownership',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ALTER TABLE communications DROP CONSTRAINT communications_type_check;
      ALTER TABLE communications ADD CONSTRAINT communications_type_check CHECK (type IN ('chat', 'note', 'call', 'email', 'chat_note'));
      ALTER TABLE clients ADD COLUMN responsible_user_id integer REFERENCES users(id);

      CREATE TABLE conversation_states (
        thread_key text PRIMARY KEY,
        assignee_id integer REFERENCES users(id),
        state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'done', 'snoozed')),
        snoozed_until timestamptz,
        -- Set when the assignee was told the client has waited past the reply target; cleared by
        -- the firm's next reply, so each wait is told once.
        overdue_notified_at timestamptz,
        -- The conversation's latest activity (chat_threads' last_at and last_id, kept in step by the
        -- triggers below): what lets "assigned to me" be read from an index, newest first.
        last_at timestamptz,
        last_id integer,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((state = 'snoozed') = (snoozed_until IS NOT NULL))
      );
      -- The snooze timer's queue: only snoozed rows, in the order they end.
      CREATE INDEX conversation_states_snoozed ON conversation_states (snoozed_until) WHERE state = 'snoozed';
      CREATE INDEX conversation_states_assignee_recent ON conversation_states (assignee_id, last_at DESC, last_id DESC)
        WHERE assignee_id IS NOT NULL;
      CREATE FUNCTION conversation_states_take_activity() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        SELECT t.last_at, t.last_id INTO NEW.last_at, NEW.last_id FROM chat_threads t WHERE t.thread_key = NEW.thread_key;
        RETURN NEW;
      END $$;
      CREATE TRIGGER conversation_states_activity BEFORE INSERT ON conversation_states
        FOR EACH ROW EXECUTE FUNCTION conversation_states_take_activity();
      CREATE FUNCTION chat_threads_pass_activity() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversation_states SET last_at = NEW.last_at, last_id = NEW.last_id
        WHERE thread_key = NEW.thread_key AND (last_at, last_id) IS DISTINCT FROM (NEW.last_at, NEW.last_id);
        RETURN NULL;
      END $$;
      CREATE TRIGGER chat_threads_conversation_activity AFTER INSERT OR UPDATE OF last_at, last_id ON chat_threads
        FOR EACH ROW EXECUTE FUNCTION chat_threads_pass_activity();

      CREATE TABLE notifications (
        id bigserial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users(id),
        kind text NOT NULL CHECK (kind IN ('assigned', 'mention', 'message', 'overdue')),
        at timestamptz NOT NULL DEFAULT now(),
        read_at timestamptz,
        thread_key text NOT NULL,
        communication_id integer REFERENCES communications(id) ON DELETE CASCADE,
        actor_id integer REFERENCES users(id),
        -- For 'assigned': who has the conversation now (null: nobody), as the person was told.
        assignee_id integer REFERENCES users(id)
      );
      CREATE INDEX notifications_user ON notifications (user_id, id DESC);
      CREATE INDEX notifications_unread ON notifications (user_id, thread_key) WHERE read_at IS NULL;

      -- Inbound chat records reopen a done or snoozed conversation; a client's conversation that
      -- has never had a row gets the client's responsible person; the assignee hears of a new
      -- message (once until they read their notifications). An outbound reply ends a wait, so
      -- the next one is told of again. One statement-level pass per insert statement, in the
      -- same transaction as the records (README "Ownership").
      CREATE FUNCTION conversation_states_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        told integer[];
        changed integer;
      BEGIN
        WITH arrived AS (
          SELECT chat_thread_key(r.client_id, r.peer_phone) AS key, max(r.client_id) AS client_id, max(r.id) AS last_id,
                 (array_agg(r.case_id ORDER BY r.id DESC))[1] AS last_case_id
          FROM new_rows r WHERE r.type = 'chat' AND r.direction = 'inbound' GROUP BY 1
        ),
        earlier AS (
          SELECT s.thread_key, s.assignee_id, s.state FROM conversation_states s WHERE s.thread_key IN (SELECT key FROM arrived)
        ),
        kept AS (
          INSERT INTO conversation_states AS s (thread_key, assignee_id)
          SELECT a.key, u.id FROM arrived a
          LEFT JOIN clients cl ON cl.id = a.client_id
          LEFT JOIN users u ON u.id = cl.responsible_user_id AND u.deactivated_at IS NULL AND ${VISIBLE('u.id', 'a.client_id', 'NULL')}
          ORDER BY a.key
          ON CONFLICT (thread_key) DO UPDATE SET state = 'open', snoozed_until = NULL, overdue_notified_at = NULL, updated_at = now()
            WHERE s.state <> 'open'
          RETURNING s.thread_key, s.assignee_id
        ),
        notes AS (
          INSERT INTO notifications (user_id, kind, thread_key, communication_id, assignee_id)
          SELECT k.assignee_id, 'assigned', k.thread_key, a.last_id, k.assignee_id
          FROM kept k JOIN arrived a ON a.key = k.thread_key
          WHERE k.assignee_id IS NOT NULL AND k.thread_key NOT IN (SELECT thread_key FROM earlier)
          UNION ALL
          SELECT e.assignee_id, 'message', e.thread_key, a.last_id, NULL
          FROM earlier e JOIN arrived a ON a.key = e.thread_key
          WHERE e.assignee_id IS NOT NULL AND ${VISIBLE('e.assignee_id', 'a.client_id', 'a.last_case_id')}
            AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.user_id = e.assignee_id AND n.thread_key = e.thread_key
                            AND n.kind = 'message' AND n.read_at IS NULL)
          RETURNING user_id
        )
        SELECT (SELECT array_agg(DISTINCT user_id) FROM notes),
               (SELECT count(*) FROM kept k WHERE k.thread_key IN (SELECT thread_key FROM earlier) OR k.assignee_id IS NOT NULL)
        INTO told, changed;
        IF told IS NOT NULL THEN
          PERFORM pg_notify('firm_chat_changes', json_build_object('notify', told)::text);
        END IF;
        IF changed > 0 THEN
          PERFORM pg_notify('firm_chat_changes', '{"ownership":true}');
        END IF;
        UPDATE conversation_states s SET overdue_notified_at = NULL
        WHERE s.overdue_notified_at IS NOT NULL
          AND s.thread_key IN (SELECT chat_thread_key(r.client_id, r.peer_phone) FROM new_rows r WHERE r.type = 'chat' AND r.direction = 'outbound');
        RETURN NULL;
      END $$;
      CREATE TRIGGER communications_conversation_states AFTER INSERT ON communications
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION conversation_states_after_insert();
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS communications_conversation_states ON communications;
      DROP TRIGGER IF EXISTS chat_threads_conversation_activity ON chat_threads;
      DROP FUNCTION IF EXISTS chat_threads_pass_activity();
      DROP FUNCTION IF EXISTS conversation_states_take_activity();
      DROP FUNCTION IF EXISTS conversation_states_after_insert();
      DROP TABLE IF EXISTS notifications;
      DROP TABLE IF EXISTS conversation_states;
      ALTER TABLE clients DROP COLUMN IF EXISTS responsible_user_id;
      DELETE FROM communications WHERE type = 'chat_note';
      ALTER TABLE communications DROP CONSTRAINT communications_type_check;
      ALTER TABLE communications ADD CONSTRAINT communications_type_check CHECK (type IN ('chat', 'note', 'call', 'email'));
    `);
  },
};
