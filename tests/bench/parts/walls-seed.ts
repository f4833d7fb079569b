import { query } from '../bench-support';
import type { TBenchPerson } from './bench-caller';

// Ethical walls over the queries part's data set, set-based in SQL. Done in two steps so that the
// same procedures can be measured before the walls and after them on the same records:
// `seedCaseData` (cases, and records filed on them: data, no wall) then `seedWalls` (restricted
// clients and their members, screens). The seeded clients are 1 … `clients`; the long-history
// client comes after them and is never restricted, so both readers can open its thread.

/** Restricted clients per seeded client: 1,000 of 100,000 (50 of 5,000 under --quick: the walled reader is on all of them). */
const RESTRICTED_EVERY = 100;
/** Staff whom members and screens are drawn from. */
const POOL = 200;
/** Restricted clients the walled reader is a member of. */
export const WALLED_MEMBERSHIPS = 50;

export type TWallReaders = { walled: TBenchPerson; unwalled: TBenchPerson };
export type TWallSeed = { restricted: number; members: number; screens: number; walledScreens: number };

/** The staff pool and the two readers measured: one to be walled, one on no wall at all. */
export async function addWallReaders(url: string): Promise<TWallReaders> {
  await query(
    url,
    `INSERT INTO users (email, name, role, password_hash)
     SELECT 'pool-' || g || '@bench.test', 'Pool ' || g, 'staff', 'no-password' FROM generate_series(1, ${POOL}) g`,
  );
  const person = async (key: string, name: string): Promise<TBenchPerson> => {
    const email = `${key}@bench.test`;
    const [row] = await query<{ id: number }>(
      url,
      `INSERT INTO users (email, name, role, password_hash) VALUES ($1, $2, 'staff', 'no-password') RETURNING id`,
      [email, name],
    );
    return { id: row!.id, name, email, role: 'staff' };
  };
  return { walled: await person('walled', 'Walled Reader'), unwalled: await person('unwalled', 'Unwalled Reader') };
}

/**
 * Cases, with records filed on them: one case for every hundredth seeded client (half its records
 * on it), and three on the long-history client (A: a tenth of its records, B: three tenths; the
 * rest on none). Case A is the one the walled reader will be screened from.
 */
export async function seedCaseData(url: string, clients: number, longClientId: number): Promise<void> {
  await query(
    url,
    `
    INSERT INTO cases (client_id, reference, title)
    SELECT g, 'BENCH-' || g, 'Bench matter ' || g FROM generate_series(${RESTRICTED_EVERY / 2}, ${clients}, ${RESTRICTED_EVERY}) g;
    UPDATE communications c SET case_id = k.id FROM cases k
    WHERE k.reference LIKE 'BENCH-%' AND c.client_id = k.client_id AND c.id % 2 = 0;
    INSERT INTO cases (client_id, reference, title) VALUES
      (${longClientId}, 'LONG-A', 'Long history A'), (${longClientId}, 'LONG-B', 'Long history B'), (${longClientId}, 'LONG-C', 'Long history C');
    UPDATE communications c SET case_id = CASE WHEN c.id % 10 = 0 THEN a.id ELSE b.id END
    FROM (SELECT id FROM cases WHERE reference = 'LONG-A') a, (SELECT id FROM cases WHERE reference = 'LONG-B') b
    WHERE c.client_id = ${longClientId} AND c.id % 10 < 4;
    ANALYZE cases;
    ANALYZE communications;`,
  );
}

/**
 * The walls: every hundredth seeded client restricted, each with 5–20 members from the pool; 200
 * screens (20 under --quick) of pool staff, three from clients and one from cases. The walled
 * reader is a member of the 50 restricted clients with the newest conversations (so they are on
 * the first pages of the inbox), and screened from four subjects that are too: two clients, case
 * A of the long history, and one other case.
 */
export async function seedWalls(url: string, options: { clients: number; screens: number; readers: TWallReaders }): Promise<TWallSeed> {
  const { walled } = options.readers;
  const pool = `(SELECT array_agg(id ORDER BY id) FROM users WHERE email LIKE 'pool-%@bench.test')`;
  await query(
    url,
    `
    UPDATE clients SET restricted = true WHERE id % ${RESTRICTED_EVERY} = 0 AND id <= ${options.clients};
    INSERT INTO access_members (subject_type, subject_id, user_id)
    SELECT 'client', r.id, (${pool})[1 + (r.id * 31 + i * 17) % ${POOL}]
    FROM clients r CROSS JOIN LATERAL generate_series(1, 5 + (r.id / ${RESTRICTED_EVERY}) % 16) i
    WHERE r.restricted
    ON CONFLICT DO NOTHING;
    INSERT INTO access_screens (subject_type, subject_id, user_id, reason)
    SELECT 'client', 1 + (g * 7919) % ${options.clients}, (${pool})[1 + (g * 13) % ${POOL}], 'Bench screen'
    FROM generate_series(1, ${Math.round((options.screens * 3) / 4)}) g
    ON CONFLICT DO NOTHING;
    INSERT INTO access_screens (subject_type, subject_id, user_id, reason)
    SELECT 'case', k.id, (${pool})[1 + (k.id * 11) % ${POOL}], 'Bench screen'
    FROM cases k WHERE k.reference LIKE 'BENCH-%' ORDER BY k.id LIMIT ${options.screens - Math.round((options.screens * 3) / 4)}
    ON CONFLICT DO NOTHING;

    INSERT INTO access_members (subject_type, subject_id, user_id)
    SELECT 'client', t.client_id, ${walled.id} FROM chat_threads t JOIN clients c ON c.id = t.client_id
    WHERE c.restricted ORDER BY t.last_at DESC LIMIT ${WALLED_MEMBERSHIPS};
    INSERT INTO access_screens (subject_type, subject_id, user_id, reason)
    SELECT 'client', t.client_id, ${walled.id}, 'Bench screen' FROM chat_threads t JOIN clients c ON c.id = t.client_id
    WHERE NOT c.restricted AND c.id <= ${options.clients} ORDER BY t.last_at DESC OFFSET 2 LIMIT 2;
    INSERT INTO access_screens (subject_type, subject_id, user_id, reason)
    SELECT 'case', id, ${walled.id}, 'Bench screen' FROM cases WHERE reference = 'LONG-A';
    INSERT INTO access_screens (subject_type, subject_id, user_id, reason)
    SELECT 'case', k.id, ${walled.id}, 'Bench screen' FROM cases k JOIN chat_threads t ON t.client_id = k.client_id
    WHERE k.reference LIKE 'BENCH-%' ORDER BY t.last_at DESC LIMIT 1;
    ANALYZE clients;
    ANALYZE access_members;
    ANALYZE access_screens;`,
  );
  const [counts] = await query<TWallSeed>(
    url,
    `SELECT (SELECT count(*)::int FROM clients WHERE restricted) AS restricted,
            (SELECT count(*)::int FROM access_members) AS members,
            (SELECT count(*)::int FROM access_screens) AS screens,
            (SELECT count(*)::int FROM access_screens WHERE user_id = $1) AS "walledScreens"`,
    [walled.id],
  );
  return counts!;
}
