import type { TMigration } from '../migration-type';

// The firm's read-receipt policy (server/messaging/README.md "Read receipts"): one row, set by a
// director in Settings. None means READ_RECEIPTS is in force: the variable is only the first default.
//
// And a reply ends the wait (server/messaging/README.md "Read receipts" and the notifications'
// part): a person's outbound record in a conversation marks read everyone's unread `overdue`
// notification about it, and tells their open pages, in the same statement as the record (so a
// send from any path — text, file, template, a scheduled one — does it, and a rolled-back one does not).
export const readReceiptPolicy: TMigration = {
  name: '0036-read-receipt-policy',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE read_receipt_policy (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        mode text NOT NULL CHECK (mode IN ('off', 'assignee', 'anyone')),
        updated_by integer REFERENCES users(id),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      -- What a reply looks for: the conversation's unread overdue notifications, whoever's they are.
      CREATE INDEX notifications_overdue_unread ON notifications (thread_key) WHERE read_at IS NULL AND kind = 'overdue';
      CREATE FUNCTION overdue_cleared_by_reply() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, public, pg_temp AS $$
      DECLARE
        told integer[];
      BEGIN
        WITH replied AS (
          SELECT DISTINCT chat_thread_key(r.client_id, r.peer_phone) AS key FROM new_rows r
          WHERE r.type = 'chat' AND r.direction = 'outbound' AND r.sent_by IS NOT NULL
        ), cleared AS (
          UPDATE notifications n SET read_at = now()
          FROM replied WHERE n.thread_key = replied.key AND n.kind = 'overdue' AND n.read_at IS NULL
          RETURNING n.user_id
        )
        SELECT array_agg(DISTINCT user_id) INTO told FROM cleared;
        IF told IS NOT NULL THEN
          PERFORM pg_notify('firm_chat_changes', json_build_object('notify', told)::text);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER communications_overdue_cleared AFTER INSERT ON communications
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION overdue_cleared_by_reply();
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TRIGGER IF EXISTS communications_overdue_cleared ON communications;
      DROP FUNCTION IF EXISTS overdue_cleared_by_reply();
      DROP TABLE IF EXISTS read_receipt_policy;
    `);
  },
};
