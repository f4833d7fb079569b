import type { TMigration } from '../migration-type';

// Reach (README "Scheduled sends", "Business hours"): sends that wait for their time, the firm's
// opening hours with the reply sent outside them, and what tells an author their send could not go.
//
// `scheduled_sends` is itself the queue (the way conversation timers are: the row is the job).
// Every instance polls it; a due row is leased with FOR UPDATE SKIP LOCKED, and it stops being due
// in the same transaction that writes the message's record, so a crash before that transaction
// leaves it due (sent later, once) and a crash after it leaves a `pending` record that the sweeper
// of abandoned sends marks as of unknown outcome (never sent twice).
// Out-of-hours replies are rows of the same queue (`kind = 'auto_reply'`, no author), written by the
// webhook's ingest and sent by the worker, never inside the webhook's request.
export const reach: TMigration = {
  name: '0021-reach',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE scheduled_sends (
        id bigserial PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('text', 'template', 'file', 'auto_reply')),
        -- The author; null for the firm's own automatic sends.
        created_by integer REFERENCES users(id),
        client_id integer REFERENCES clients(id) ON DELETE CASCADE,
        case_id integer REFERENCES cases(id) ON DELETE SET NULL,
        -- The number it goes to (digits), fixed when it was scheduled: the one the composer showed
        -- (README "Scheduled sends"), and the one whose 24-hour window and opt-out are checked at send time.
        to_digits text NOT NULL,
        body text,
        -- {name, language, params, header?: {attachmentId}} for a template.
        template jsonb,
        -- The upload it sends (a file, or a template's media header): held from pruning while scheduled;
        -- an upload deleted before its time leaves null here, and the send is not made.
        attachment_id integer REFERENCES attachments(id) ON DELETE SET NULL,
        send_at timestamptz NOT NULL,
        state text NOT NULL DEFAULT 'scheduled' CHECK (state IN ('scheduled', 'sent', 'not_sent', 'cancelled')),
        -- Why it was not sent (the window closed, an opt-out, the file gone), for its author.
        reason text,
        communication_id integer REFERENCES communications(id) ON DELETE SET NULL,
        -- A worker holds a due row this long while it sends it; a crashed worker's row is due again after.
        leased_until timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (kind <> 'auto_reply' OR created_by IS NULL),
        CHECK (state <> 'not_sent' OR reason IS NOT NULL)
      );
      CREATE INDEX scheduled_sends_due_idx ON scheduled_sends (send_at) WHERE state = 'scheduled';
      -- A conversation's list: what waits, and what was recently not sent.
      CREATE INDEX scheduled_sends_client_idx ON scheduled_sends (client_id, send_at) WHERE state IN ('scheduled', 'not_sent');
      CREATE INDEX scheduled_sends_author_idx ON scheduled_sends (created_by, send_at);
      CREATE INDEX scheduled_sends_attachment_idx ON scheduled_sends (attachment_id) WHERE attachment_id IS NOT NULL;
      -- One upload waits in one scheduled send at a time (as it is sent once).
      CREATE UNIQUE INDEX scheduled_sends_attachment_once ON scheduled_sends (attachment_id) WHERE state = 'scheduled';

      -- The firm's week: one row. A day not listed is closed; no row at all means no out-of-hours reply.
      CREATE TABLE business_hours (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        time_zone text NOT NULL,
        -- [{day: 1-7 (Monday 1), opens: 'HH:MM', closes: 'HH:MM'}]
        week jsonb NOT NULL DEFAULT '[]',
        closed_dates date[] NOT NULL DEFAULT '{}',
        auto_reply text CHECK (auto_reply IS NULL OR length(auto_reply) BETWEEN 1 AND 4096),
        updated_by integer REFERENCES users(id),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      -- When each number was last sent the out-of-hours reply: at most once per 12 hours.
      CREATE TABLE auto_reply_marks (
        digits text PRIMARY KEY,
        last_at timestamptz NOT NULL
      );

      ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
      ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
        CHECK (kind IN ('assigned', 'mention', 'message', 'overdue', 'scheduled_not_sent'));
      ALTER TABLE notifications ADD COLUMN scheduled_send_id bigint REFERENCES scheduled_sends(id) ON DELETE CASCADE;
      CREATE INDEX notifications_scheduled_send ON notifications (scheduled_send_id) WHERE scheduled_send_id IS NOT NULL;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DELETE FROM notifications WHERE kind = 'scheduled_not_sent';
      ALTER TABLE notifications DROP COLUMN IF EXISTS scheduled_send_id;
      ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
      ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check CHECK (kind IN ('assigned', 'mention', 'message', 'overdue'));
      DROP TABLE IF EXISTS auto_reply_marks;
      DROP TABLE IF EXISTS business_hours;
      DROP TABLE IF EXISTS scheduled_sends;
    `);
  },
};
