import { REBUILD_CHAT_THREADS_SQL } from '../../../server/core/db/migrations/0003-chat-threads';
import { query, type TBenchScale } from '../bench-support';
import type { TBenchPerson } from './bench-caller';

// The per-person unread part's data (server/inbox/README.md "Unread"), set-based as part 3 seeds:
// the firm's records up to the moment its people's marks were set, the people (each account starts
// with every conversation read, migration 0035's trigger), then the records that arrived since, through
// the real summary trigger in bounded statements, then each person's reading as a firm's would be.

/** The share of the records that arrive after the people's marks were set. */
const LATER_SHARE = 0.1;
/** Records a statement, for those arriving later (bounded transactions, each through the summary trigger). */
const LATER_BATCH = 10_000;
/** One case for every this many clients (half its records on it); the walled person is screened from 20 of them. */
const CASE_EVERY = 100;
const WALLED_CASES = 20;

export const UNREAD_PEOPLE = ['caught up', 'behind', 'halfway', 'walled', 'new account'] as const;
export type TUnreadPerson = (typeof UNREAD_PEOPLE)[number];
export type TUnreadSeed = { people: Record<TUnreadPerson, TBenchPerson>; conversations: number; later: number };

/** `g`'s record: chats (70%) half inbound, a twentieth of them from numbers no client has (5,000 of them, one new conversation each later). */
const recordsSql = (scale: TBenchScale, from: number, to: number) => `
  INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, created_at, read_at)
  SELECT CASE WHEN g % 10 < 7 THEN 'chat' WHEN g % 10 < 8 THEN 'note' WHEN g % 10 < 9 THEN 'email' ELSE 'call' END,
         CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'outbound' END,
         CASE WHEN g % 10 < 7 AND g % 2 = 1 THEN 'delivered' END,
         'Unread bench message ' || g,
         CASE WHEN g % 20 = 0 THEN NULL ELSE 1 + (g::bigint * 7919) % ${scale.clients} END,
         '447' || lpad((CASE WHEN g % 20 = 0 THEN 900000000 + g % 5000 + ${from > 0 ? 5000 : 0} ELSE 1 + (g::bigint * 7919) % ${scale.clients} END)::text, 9, '0'),
         CASE WHEN g % 10 < 7 THEN jsonb_build_object('chat_msg_id', 'wamid.u-' || g) ELSE '{}'::jsonb END,
         now() - (${scale.communications} - g) * interval '1 second',
         NULL
  FROM generate_series(${from + 1}, ${to}) g;`;

export async function seedUnread(url: string, scale: TBenchScale): Promise<TUnreadSeed> {
  const earlier = Math.round(scale.communications * (1 - LATER_SHARE));
  await query(
    url,
    `
    INSERT INTO clients (name) SELECT 'Client ' || g FROM generate_series(1, ${scale.clients}) g;
    INSERT INTO client_numbers (client_id, digits, "primary") SELECT g, '447' || lpad(g::text, 9, '0'), true FROM generate_series(1, ${scale.clients}) g;
    ALTER TABLE communications DISABLE TRIGGER communications_chat_threads_insert;
    ${recordsSql(scale, 0, earlier)}
    ALTER TABLE communications ENABLE TRIGGER communications_chat_threads_insert;
    ${REBUILD_CHAT_THREADS_SQL}
    INSERT INTO cases (client_id, reference, title)
    SELECT g, 'UNREAD-' || g, 'Bench matter ' || g FROM generate_series(${CASE_EVERY / 2}, ${scale.clients}, ${CASE_EVERY}) g;
    ANALYZE;`,
  );
  // Their accounts start with every conversation there is read (the new account comes after the later records).
  const add = async (key: string, name: string): Promise<TBenchPerson> => {
    const email = `unread-${key.replace(' ', '-')}@bench.test`;
    const [row] = await query<{ id: number }>(
      url,
      `INSERT INTO users (email, name, role, password_hash) VALUES ($1, $2, 'staff', 'no-password') RETURNING id`,
      [email, name],
    );
    return { id: row!.id, name, email, role: 'staff' };
  };
  const caughtUp = await add('caught up', 'Caught Up');
  const behind = await add('behind', 'Behind');
  const halfway = await add('halfway', 'Halfway');
  const walled = await add('walled', 'Walled');
  for (let from = earlier; from < scale.communications; from += LATER_BATCH)
    await query(url, recordsSql(scale, from, Math.min(scale.communications, from + LATER_BATCH)));
  const newAccount = await add('new account', 'New Account');

  // Reading as the app writes it (mark-thread-read.ts): the summary's count and the newest id. The
  // caught-up person read every conversation, the halfway and walled people half of them (by a hash
  // of the key), the behind person none since their marks were set.
  const readAll = (who: number, where: string) => `
    INSERT INTO read_marks AS r (user_id, thread_key, read_count, read_through_id, read_at)
    SELECT ${who}, t.thread_key, t.inbound, (SELECT max(id) FROM communications), now() FROM chat_threads t WHERE ${where}
    ON CONFLICT (user_id, thread_key) DO UPDATE SET read_count = excluded.read_count, read_through_id = excluded.read_through_id, read_at = excluded.read_at;`;
  await query(
    url,
    `
    UPDATE communications c SET case_id = k.id FROM cases k WHERE c.client_id = k.client_id AND c.id % 2 = 0;
    ${readAll(caughtUp.id, 'true')}
    ${readAll(halfway.id, 'hashtext(t.thread_key) % 2 = 0')}
    ${readAll(walled.id, 'hashtext(t.thread_key) % 2 = 0')}
    INSERT INTO access_screens (subject_type, subject_id, user_id, reason)
    SELECT 'case', k.id, ${walled.id}, 'Bench screen' FROM cases k JOIN chat_threads t ON t.thread_key = 'client-' || k.client_id
    ORDER BY t.last_at DESC LIMIT ${WALLED_CASES};
    ANALYZE;`,
  );
  const [counts] = await query<{ conversations: number }>(url, 'SELECT count(*)::int AS conversations FROM chat_threads');
  return {
    people: { 'caught up': caughtUp, behind, halfway, walled, 'new account': newAccount },
    conversations: counts!.conversations,
    later: scale.communications - earlier,
  };
}
