import type { TMigration } from '../migration-type';

// The badge, kept (server/inbox/README.md "The badge, kept"): a conversation removed (a relink) or a
// read mark deleted marked every reader's totals stale, but a reader's first count made meanwhile
// inserts totals the marking could not see (its row was not yet committed), from a snapshot that still
// held what was removed: counted in for good. Now the removal is logged too, as any change is, so
// the snapshot's correction and the next count take it out whatever the timing; the stale marks stay.

/** 0039's two removal triggers' functions, with the removal logged (up) or as 0039 made them (down). */
function removalFunctions(logged: boolean): string {
  const logConversations = logged ? 'INSERT INTO derived.unread_changes (thread_key) SELECT o.thread_key FROM old_rows o;' : '';
  const logMarks = logged ? 'INSERT INTO derived.unread_changes (thread_key, user_id) SELECT o.thread_key, o.user_id FROM old_rows o;' : '';
  return `
    CREATE OR REPLACE FUNCTION derived.unread_stale_all() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM old_rows) THEN
        ${logConversations}
        UPDATE derived.unread_totals SET stale = true WHERE NOT stale;
      END IF;
      RETURN NULL;
    END $$;
    CREATE OR REPLACE FUNCTION derived.unread_stale_readers() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${logMarks}
      UPDATE derived.unread_totals u SET stale = true WHERE NOT u.stale AND u.user_id IN (SELECT o.user_id FROM old_rows o);
      RETURN NULL;
    END $$;`;
}

export const unreadRemovalsLogged: TMigration = {
  name: '0043-unread-removals-logged',
  async up({ context: qi }) {
    await qi.sequelize.query(removalFunctions(true));
  },
  async down({ context: qi }) {
    await qi.sequelize.query(removalFunctions(false));
  },
};
