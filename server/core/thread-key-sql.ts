import { sql, type Sql } from './sql';

/**
 * The client a conversation's key names, as SQL (`client-42` → 42; NULL for an unlinked number's
 * `phone-…`): the inverse of `chat_thread_key()` (migration 0003) and of `shared/thread-key.ts`.
 * `key` is the key's SQL expression (sql`n.thread_key`).
 */
export const clientOfThreadKey = (key: Sql): Sql => sql`CASE WHEN ${key} LIKE 'client-%' THEN substr(${key}, 8)::int END`;
