import { hashPassword } from '../../../server/auth/password';
import { query } from '../bench-support';

// The scheduled-sends part's data (server/messaging/README.md "Scheduled sends"), set-based in SQL: a director who
// schedules, one client per scheduled send with a number of its own (so the simulator's log tells
// every send apart by its `to`), each number with an inbound chat message half an hour old (free
// text may only go inside the 24-hour window), then the queue's rows themselves. Client n's number
// is '4475' and n in 8 digits: distinct from every other part's.

/** One scheduled row as the part follows it: the number it goes to and when it is due. */
export type TScheduledRow = { id: number; digits: string; dueMs: number };

/** The ids of one batch of scheduled rows (consecutive: each batch is one INSERT on a quiet table). */
export type TBatch = { firstId: number; lastId: number; rows: TScheduledRow[] };

/** A director (the author of every scheduled send) and `clients` clients, numbered from 1; returns the director's id. */
export async function seedScheduledFirm(url: string, clients: number): Promise<number> {
  const [director] = await query<{ id: number }>(
    url,
    `INSERT INTO users (email, name, role, password_hash) VALUES ('director@firm.test', 'Director', 'director', $1) RETURNING id`,
    [await hashPassword('bench-password-123')],
  );
  await query(
    url,
    `
    INSERT INTO clients (id, name, created_at, updated_at)
    SELECT g, 'Scheduled client ' || g, now(), now() FROM generate_series(1, ${clients}) g;
    SELECT setval(pg_get_serial_sequence('clients', 'id'), ${clients});
    INSERT INTO client_numbers (client_id, digits, "primary")
    SELECT g, '4475' || lpad(g::text, 8, '0'), true FROM generate_series(1, ${clients}) g;
    INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata, created_at)
    SELECT 'chat', 'inbound', 'Could you let me know when the hearing is?', g, '4475' || lpad(g::text, 8, '0'),
           jsonb_build_object('chat_msg_id', 'wamid.sched-in-' || g), now() - interval '30 minutes'
    FROM generate_series(1, ${clients}) g;
    ANALYZE;`,
  );
  return director!.id;
}

/**
 * Schedules a text to each client in [from, from + count): the i-th (from 0) due at
 * `leadSeconds` from now plus `i * spacingMs` (0: all at the same moment), to the client's one
 * number, fixed when it is scheduled as the composer fixes it. Returns the rows with their due
 * times as the database holds them.
 */
export async function scheduleTexts(
  url: string,
  batch: { director: number; from: number; count: number; leadSeconds: number; spacingMs: number },
): Promise<TBatch> {
  const { director, from, count, leadSeconds, spacingMs } = batch;
  const rows = await query<{ id: string; digits: string; due_ms: string }>(
    url,
    `
    WITH due AS (SELECT date_trunc('second', now()) + $2 * interval '1 second' AS at),
    made AS (
      INSERT INTO scheduled_sends (kind, created_by, client_id, to_digits, body, send_at)
      SELECT 'text', $1, g, '4475' || lpad(g::text, 8, '0'),
             'Your hearing is confirmed for Thursday at 10:00. Reference S' || g,
             due.at + (g - $3) * $5 * interval '1 millisecond'
      FROM generate_series($3::int, $3::int + $4::int - 1) g, due
      RETURNING id, client_id, send_at
    )
    SELECT made.id, n.digits, (extract(epoch FROM made.send_at) * 1000)::bigint AS due_ms
    FROM made JOIN client_numbers n ON n.client_id = made.client_id
    ORDER BY made.id`,
    [director, leadSeconds, from, count, spacingMs],
  );
  const parsed = rows.map((r) => ({ id: Number(r.id), digits: r.digits, dueMs: Number(r.due_ms) }));
  return { firstId: parsed[0]!.id, lastId: parsed.at(-1)!.id, rows: parsed };
}
