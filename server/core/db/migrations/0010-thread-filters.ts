import type { TMigration } from '../migration-type';

// The inbox filters' first pages (`inbox.threads`, README "HTTP surfaces"): conversations with
// unread messages, and those of numbers no client (or several) has, newest first, without walking
// every conversation.
export const threadFilters: TMigration = {
  name: '0010-thread-filters',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE INDEX chat_threads_unread_idx ON chat_threads (last_at DESC, last_id DESC) WHERE unread > 0;
      CREATE INDEX chat_threads_unlinked_idx ON chat_threads (last_at DESC, last_id DESC) WHERE client_id IS NULL;
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP INDEX IF EXISTS chat_threads_unread_idx, chat_threads_unlinked_idx');
  },
};
