import pg from 'pg';
import { REBUILD_CHAT_THREADS_SQL } from '../../../server/core/db/migrations/0003-chat-threads';
import { query } from '../bench-support';

// The records part's data set (tests/bench/README.md "Benchmarks", part 10), set-based in SQL like part 3's: the
// firm's clients and records at the run's scale, a share of them closed and seven years old (what
// retention destroys), a trail of audit events appended through the real chain trigger, numbers
// waiting to be linked, and files, small on the old records and large on recent ones.

/** Years back the old clients' records and cases date from: past the default RETENTION_YEARS (6). */
export const OLD_YEARS = 7;
/** Records on old clients: what one retention batch destroys (a fiftieth under --quick). */
export const OLD_RECORDS = { full: 100_000, quick: 2_000, smoke: 200 };
/** The unlinked messages each number to be linked has. */
const PER_NUMBER = 3;
/**
 * Events a statement appends while seeding the trail: each one updates the chain's head row, and
 * within one transaction every update leaves a version the next must step over (part 10's
 * "one statement of N events" figure), so many small statements are far faster than a few big ones.
 */
export const TRAIL_STATEMENT = 1_000;

export type TRecordsScale = { clients: number; communications: number; oldClients: number };

/** Unlinked numbers, each with its own messages, for inbox.link to file under a client one by one. */
export const linkNumber = (n: number) => `4478${String(n).padStart(8, '0')}`;

/**
 * Clients and records as part 3 seeds them (a record a second up to now, a twentieth from unknown
 * numbers), except that the first `oldClients` clients date from seven years ago, and so do all
 * their records; every hundredth client has a case with half its records on it, an old client's
 * closed seven years ago. Then `linkNumbers` unknown numbers with three messages each.
 */
export async function seedFirm(url: string, scale: TRecordsScale, linkNumbers: number): Promise<void> {
  const { clients, communications, oldClients } = scale;
  const clientOf = `(1 + (g::bigint * 7919) % ${clients})`;
  await query(
    url,
    `
    INSERT INTO clients (name, created_at, updated_at)
    SELECT 'Client ' || g, CASE WHEN g <= ${oldClients} THEN now() - interval '${OLD_YEARS + 1} years' ELSE now() END, now()
    FROM generate_series(1, ${clients}) g;
    INSERT INTO client_numbers (client_id, digits, "primary") SELECT g, '447' || lpad(g::text, 9, '0'), true FROM generate_series(1, ${clients}) g;
    ALTER TABLE communications DISABLE TRIGGER communications_chat_threads_insert;
    INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, created_at, read_at)
    SELECT CASE WHEN g % 10 < 7 THEN 'chat' WHEN g % 10 < 8 THEN 'note' WHEN g % 10 < 9 THEN 'email' ELSE 'call' END,
           CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'outbound' END,
           CASE WHEN g % 10 < 7 AND g % 2 = 1 THEN (ARRAY['sent','delivered','read','failed'])[1 + g % 4] END,
           'Thank you for the documents, we will review the draft agreement before the hearing. Reference R' || g,
           CASE WHEN g % 20 = 0 THEN NULL ELSE ${clientOf} END,
           '447' || lpad((CASE WHEN g % 20 = 0 THEN 900000000 + g % 5000 ELSE ${clientOf} END)::text, 9, '0'),
           CASE WHEN g % 10 < 7 THEN jsonb_build_object('chat_msg_id', 'wamid.r-' || g) ELSE '{}'::jsonb END,
           CASE WHEN g % 20 <> 0 AND ${clientOf} <= ${oldClients}
                THEN now() - interval '${OLD_YEARS} years' - (${communications} - g) * interval '1 second'
                ELSE now() - (${communications} - g) * interval '1 second' END,
           CASE WHEN g % 7 = 0 THEN NULL ELSE now() END
    FROM generate_series(1, ${communications}) g;
    INSERT INTO communications (type, direction, body, peer_phone, metadata, created_at)
    SELECT 'chat', 'inbound', 'Hello, is this the firm?', '4478' || lpad((g / ${PER_NUMBER})::text, 8, '0'),
           jsonb_build_object('chat_msg_id', 'wamid.link-' || g), now() - interval '1 hour'
    FROM generate_series(0, ${linkNumbers * PER_NUMBER - 1}) g;
    ALTER TABLE communications ENABLE TRIGGER communications_chat_threads_insert;
    ${REBUILD_CHAT_THREADS_SQL}
    INSERT INTO cases (client_id, reference, title, status, closed_at, created_at)
    SELECT g, 'REC-' || g, 'Matter ' || g, CASE WHEN g <= ${oldClients} THEN 'closed' ELSE 'open' END,
           CASE WHEN g <= ${oldClients} THEN now() - interval '${OLD_YEARS} years' END,
           CASE WHEN g <= ${oldClients} THEN now() - interval '${OLD_YEARS + 1} years' ELSE now() END
    FROM generate_series(50, ${clients}, 100) g;
    UPDATE communications c SET case_id = k.id FROM cases k WHERE k.reference LIKE 'REC-%' AND c.client_id = k.client_id AND c.id % 2 = 0;
    ANALYZE;`,
  );
}

/** The old clients that hold about `records` records between them (they are spread evenly over the clients). */
export function oldClientsFor(records: number, clients: number, communications: number): number {
  return Math.min(clients, Math.ceil((records * clients) / (communications * 0.95)));
}

/** Appends `events` audit events through the chain trigger, TRAIL_STATEMENT a statement; returns the seconds it took. */
export async function seedTrail(url: string, events: number, clients: number): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const t0 = performance.now();
    for (let from = 1; from <= events; from += TRAIL_STATEMENT) {
      await appendEvents(client, from, Math.min(events, from + TRAIL_STATEMENT - 1), clients);
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await client.end();
  }
}

/** One statement appending events `from`…`to`: a mix of what a firm's trail holds, with details of a realistic size. */
export async function appendEvents(client: pg.Client, from: number, to: number, clients: number): Promise<void> {
  await client.query(
    `INSERT INTO audit_events (user_id, action, subject, detail, ip)
     SELECT 1 + g % 40,
            (ARRAY['auth.sign_in', 'media.view', 'inbox.link', 'inbox.assign', 'inbox.state', 'case.status', 'client.number_add', 'auth.sign_out'])[1 + g % 8],
            'client:' || (1 + (g * 31) % ${clients}),
            CASE g % 8 WHEN 2 THEN jsonb_build_object('digits', '447' || lpad((g % 1000000000)::text, 9, '0'), 'moved', 3, 'ids', jsonb_build_array(g, g + 1, g + 2))
                       WHEN 1 THEN jsonb_build_object('attachmentId', g, 'communicationId', g * 3, 'fileName', 'Scan ' || g || '.pdf')
                       ELSE jsonb_build_object('note', 'bench event ' || g) END,
            '10.0.' || (g % 250) || '.' || (g % 200)
     FROM generate_series(${from}, ${to}) g`,
  );
}

/**
 * Files on records: `count` files of `chunks` chunks of `chunkKb` KB each (the app stores 256 KB
 * chunks), on the first chat records that `where` selects. Their bytes differ file by file; they are
 * stored uncompressed (attachment_chunks' STORAGE EXTERNAL), so their size on disk is their size.
 */
export async function seedFiles(
  url: string,
  options: { count: number; chunks: number; chunkKb: number; where: string; label: string },
): Promise<{ files: number; bytes: number }> {
  const { count, chunks, chunkKb, where, label } = options;
  const [made] = await query<{ files: number; bytes: string }>(
    url,
    `WITH files AS (
       INSERT INTO attachments (communication_id, kind, mime_type, file_name, size, sha256, state)
       SELECT c.id, 'document', 'application/pdf', '${label} ' || c.id || '.pdf', ${chunks * chunkKb * 1024},
              encode(sha256(convert_to('${label}' || c.id, 'UTF8')), 'hex'), 'stored'
       FROM communications c WHERE c.type = 'chat' AND ${where} ORDER BY c.id LIMIT ${count}
       RETURNING id),
     chunks AS (
       INSERT INTO attachment_chunks (attachment_id, seq, data)
       SELECT f.id, s, decode(repeat(md5(f.id || ':' || s), ${chunkKb * 64}), 'hex') FROM files f CROSS JOIN generate_series(0, ${chunks - 1}) s
       RETURNING octet_length(data) AS bytes)
     SELECT (SELECT count(*) FROM files)::int AS files, (SELECT coalesce(sum(bytes), 0) FROM chunks)::text AS bytes`,
  );
  return { files: made!.files, bytes: Number(made!.bytes) };
}
