import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { db, longWorkDb } from '../core/db/db';
import { setTransactionActor } from '../core/db/transaction-actor';
import { AppError } from '../core/errors';
import { queryRows, raw, sql, type Sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { isClientHeld, isHeld } from './holds';
import { caseDue, caseErasable, clientDue, clientErasable, KEPT_METADATA_KEYS, recordDue, recordErasable } from './retention-rules';

// A batch is what one approval destroys (server/records/README.md "Records"): its items are listed when it is
// previewed, so the director approves exactly what they saw; the worker erases them in chunks, each
// chunk one bounded transaction that checks every item against the rule again (a hold placed since
// leaves its items out, said so on the certificate). A retention batch has a cutoff; an erasure
// request's batch has none and takes all of one client's records.

// Any constant works; it only has to be the same for every instance.
const PREVIEW_LOCK_KEY = 7_340_020;

/** A preview older than this must be made again: what it lists may have changed. */
export const PREVIEW_VALID_HOURS = 24;

export type TBatchCounts = { clients: number; cases: number; records: number; files: number; bytes: number };
export type TBatchPreview = TBatchCounts & { batchId: string; cutoff: Date | null; retentionYears: number | null };

// An erasure request's batch is listed inside its decision's transaction, on the request pool; one
// client's records, but a long-standing client's can be many.
const LONG_STATEMENTS = "SET LOCAL statement_timeout = '120s'";

/** Lists what the conditions select as the batch's items, with the files of its records, and counts them. */
async function listItems(
  batchId: string,
  where: { records: Sql; cases: Sql; clients: Sql },
  transaction: Transaction,
  database: Sequelize = db(),
): Promise<TBatchCounts> {
  const run = (query: Sql) => queryRows(query, { transaction, on: database });
  await run(sql`INSERT INTO retention_items (batch_id, kind, item_id, client_id, case_id, bytes)
           SELECT ${batchId}, 'record', c.id, c.client_id, c.case_id, octet_length(c.body) FROM communications c WHERE ${where.records}`);
  await run(
    sql`INSERT INTO retention_items (batch_id, kind, item_id, client_id, case_id, bytes)
           SELECT ${batchId}, 'file', a.id, i.client_id, i.case_id, coalesce(a.size, 0) FROM retention_items i
           JOIN attachments a ON a.communication_id = i.item_id AND a.erased_at IS NULL
           WHERE i.batch_id = ${batchId} AND i.kind = 'record'`,
  );
  await run(sql`INSERT INTO retention_items (batch_id, kind, item_id, client_id, case_id)
           SELECT ${batchId}, 'case', k.id, k.client_id, k.id FROM cases k WHERE ${where.cases}`);
  await run(sql`INSERT INTO retention_items (batch_id, kind, item_id, client_id)
           SELECT ${batchId}, 'client', cl.id, cl.id FROM clients cl WHERE ${where.clients}`);
  // Fresh statistics for the chunks that follow (see server/core/db/request-role.ts); skipped where the role may not.
  const [analysable] = await database.query<{ may: boolean }>(
    `SELECT CASE WHEN current_setting('server_version_num')::int >= 170000 THEN has_table_privilege('retention_items', 'MAINTAIN') ELSE false END AS may`,
    { type: QueryTypes.SELECT, transaction },
  );
  if (analysable?.may) await database.query('ANALYZE retention_items', { transaction });
  const [counts] = await database.query<TBatchCounts>(
    `UPDATE retention_batches b SET clients = n.clients, cases = n.cases, records = n.records, files = n.files, bytes = n.bytes
     FROM (SELECT count(*) FILTER (WHERE kind = 'client')::int AS clients, count(*) FILTER (WHERE kind = 'case')::int AS cases,
                  count(*) FILTER (WHERE kind = 'record')::int AS records, count(*) FILTER (WHERE kind = 'file')::int AS files,
                  coalesce(sum(bytes), 0)::bigint AS bytes
           FROM retention_items WHERE batch_id = $1) n
     WHERE b.id = $1 RETURNING n.clients, n.cases, n.records, n.files, n.bytes`,
    { bind: [batchId], type: QueryTypes.SELECT, transaction },
  );
  return { ...counts!, bytes: Number(counts!.bytes) };
}

/**
 * What retention would destroy now: a new batch, listed and counted (directors). It replaces an
 * earlier preview nobody approved.
 */
export async function previewRetention(reader: TReader, retentionYears: number): Promise<TBatchPreview> {
  // A whole firm's records at once: the long-work pool (server/core/db/db.ts).
  const database = longWorkDb();
  return database.transaction(async (transaction) => {
    // Two previews at once: one after the other, so the later replaces the earlier.
    await database.query('SELECT pg_advisory_xact_lock($1)', { bind: [PREVIEW_LOCK_KEY], transaction });
    await setTransactionActor(transaction, reader.id);
    await database.query("UPDATE retention_batches SET state = 'superseded' WHERE state = 'previewed' AND kind = 'retention'", {
      transaction,
    });
    const [batch] = await db().query<{ id: string; cutoff: Date }>(
      `INSERT INTO retention_batches (kind, state, cutoff, retention_years, created_by)
       VALUES ('retention', 'previewed', now() - make_interval(years => $1::int), $1::int, $2) RETURNING id, cutoff`,
      { bind: [retentionYears, reader.id], type: QueryTypes.SELECT, transaction },
    );
    const cutoff = sql`${batch!.cutoff}::timestamptz`;
    const counts = await listItems(
      batch!.id,
      { records: recordDue(sql`c`, cutoff), cases: caseDue(sql`k`, cutoff), clients: clientDue(sql`cl`, cutoff) },
      transaction,
      database,
    );
    return { batchId: batch!.id, cutoff: new Date(batch!.cutoff), retentionYears, ...counts };
  });
}

/** An erasure request's batch: everything of the client, approved at once by the director deciding. */
export async function createErasureBatch(reader: TReader, clientId: number, transaction: Transaction): Promise<TBatchPreview> {
  await db().query(LONG_STATEMENTS, { transaction });
  const [batch] = await db().query<{ id: string }>(
    `INSERT INTO retention_batches (kind, state, created_by) VALUES ('erasure', 'previewed', $1) RETURNING id`,
    { bind: [reader.id], type: QueryTypes.SELECT, transaction },
  );
  const counts = await listItems(
    batch!.id,
    {
      records: sql`c.client_id = ${clientId}::int AND ${recordErasable(sql`c`)}`,
      cases: sql`k.client_id = ${clientId}::int AND ${caseErasable(sql`k`)}`,
      clients: sql`cl.id = ${clientId}::int AND ${clientErasable(sql`cl`)}`,
    },
    transaction,
  );
  await approveBatch(reader, batch!.id, transaction);
  return { batchId: batch!.id, cutoff: null, retentionYears: null, ...counts };
}

/** How many of a batch's items are in matters walled from the reader (the walls' one rule). */
export async function countItemsHiddenFrom(reader: TReader, batchId: string, transaction?: Transaction): Promise<number> {
  const [hidden] = await queryRows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM retention_items i WHERE i.batch_id = ${batchId} AND NOT ${visibleTo(reader, sql`i.client_id`, sql`i.case_id`)}`,
    { transaction },
  );
  return hidden!.n;
}

const isOneApprovedViolation = (error: unknown) =>
  (error as { parent?: { constraint?: string } }).parent?.constraint === 'retention_batches_one_approved';

async function approveBatch(reader: TReader, batchId: string, transaction: Transaction): Promise<void> {
  // The database records the approval itself (migration 0026): no event of the app's covers it.
  await setTransactionActor(transaction, reader.id);
  try {
    await db().query("UPDATE retention_batches SET state = 'approved', approved_by = $2, approved_at = now() WHERE id = $1", {
      bind: [batchId, reader.id],
      transaction,
    });
  } catch (error) {
    if (isOneApprovedViolation(error))
      throw new AppError('CONFLICT', 'Another batch is being destroyed now: approve this one when it has finished.');
    throw error;
  }
}

/**
 * A director's approval of a previewed batch: the worker then erases it. Of two approvals at once
 * one wins; a batch replaced by a newer preview, or previewed more than a day ago, is refused.
 */
export async function destroyBatch(reader: TReader, batchId: string): Promise<{ batchId: string; state: 'approved' }> {
  await db().transaction(async (transaction) => {
    const [batch] = await db().query<{ state: string; kind: string; stale: boolean }>(
      `SELECT state, kind, created_at < now() - make_interval(hours => ${PREVIEW_VALID_HOURS}) AS stale
       FROM retention_batches WHERE id = $1 FOR UPDATE`,
      { bind: [batchId], type: QueryTypes.SELECT, transaction },
    );
    if (!batch || batch.kind !== 'retention') throw new AppError('NOT_FOUND', 'There is no such retention batch.');
    if (batch.state === 'approved') throw new AppError('CONFLICT', 'This batch is already being destroyed.');
    if (batch.state === 'done') throw new AppError('CONFLICT', 'This batch was already destroyed.');
    if (batch.state === 'superseded') throw new AppError('CONFLICT', 'A newer preview replaced this batch: review that one instead.');
    if (batch.stale) throw new AppError('CONFLICT', `This preview is more than ${PREVIEW_VALID_HOURS} hours old: preview again.`);
    // Nobody destroys what they may not see (server/access/README.md "Ethical walls"): a director walled from a
    // matter in the batch leaves its approval to one who is not.
    if ((await countItemsHiddenFrom(reader, batchId, transaction)) > 0)
      throw new AppError(
        'CONFLICT',
        'This batch holds records of matters you may not see: a director who may see them all must approve it.',
      );
    await approveBatch(reader, batchId, transaction);
  });
  return { batchId, state: 'approved' };
}

/** Which chunk: its batch, how many items it takes, and the batch's cutoff (null: an erasure request's batch). */
type TChunk = { batchId: string; size: number; cutoff: Date | null };

/**
 * The statement that erases one chunk of a batch's items of one kind. It takes the chunk's items,
 * checks each target against the rule again (`target`: `due`, and whatever else `kept` needs),
 * erases those that pass (`erase`: CTEs ending in `erased`, returning `id` and the hash of what
 * went), marks them, and leaves the rest out with the reason `leftOut` gives. Every part of a
 * statement runs, so the bytes, numbers and summaries go in the same statement as the rows that own them.
 */
function eraseChunkSql(
  kind: 'record' | 'file' | 'case' | 'client',
  chunk: TChunk,
  parts: { target: Sql; erase: Sql; hash: 'erased_sha256' | 'sha256'; kept: Sql; leftOut: Sql },
): Sql {
  const ofKind = sql`i.batch_id = ${chunk.batchId} AND i.kind = '${raw(kind)}'`;
  return sql`
    WITH chunk AS (
      SELECT i.item_id, i.client_id AS listed_client FROM retention_items i
      WHERE ${ofKind} AND i.erased_at IS NULL AND i.left_out IS NULL
      ORDER BY i.item_id LIMIT ${chunk.size} FOR UPDATE),
    target AS (${parts.target}),
    ${parts.erase},
    marked AS (
      UPDATE retention_items i SET erased_at = now(), sha256 = e.${raw(parts.hash)}
      FROM erased e WHERE ${ofKind} AND i.item_id = e.id RETURNING 1),
    skipped AS (
      UPDATE retention_items i SET left_out = CASE WHEN t.id IS NULL THEN 'gone' ${parts.leftOut} END
      FROM chunk LEFT JOIN target t ON t.id = chunk.item_id
      WHERE ${ofKind} AND i.item_id = chunk.item_id AND (t.id IS NULL OR NOT (${parts.kept})) RETURNING 1)
    SELECT (SELECT count(*) FROM chunk)::int AS taken, (SELECT count(*) FROM marked)::int AS erased`;
}

/** Due by the batch's rule: the cutoff's when it has one, else an erasure request's. */
const dueBy = (chunk: TChunk, erasable: Sql, due: (cutoff: Sql) => Sql): Sql => {
  const cutoff = sql`${chunk.cutoff}::timestamptz`;
  return sql`CASE WHEN ${cutoff} IS NULL THEN ${erasable} ELSE ${due(cutoff)} END`;
};

const HELD_OR_NOT_DUE = sql`WHEN t.held THEN 'hold' WHEN NOT t.due THEN 'no longer due' ELSE 'records kept'`;

const ERASE_CHUNK_SQL = {
  // What a record said goes; its id, times, direction and provider ids stay, with the hash of its text.
  record: (chunk: TChunk) =>
    eraseChunkSql('record', chunk, {
      target: sql`
      SELECT c.id, c.client_id IS DISTINCT FROM chunk.listed_client AS moved,
             c.client_id IS NOT DISTINCT FROM chunk.listed_client
               AND ${dueBy(chunk, recordErasable(sql`c`), (cutoff) => recordDue(sql`c`, cutoff))} AS due,
             ${isHeld(sql`c.client_id`, sql`c.case_id`)} AS held
      FROM communications c JOIN chunk ON chunk.item_id = c.id FOR UPDATE OF c`,
      erase: sql`erased AS (
      UPDATE communications c SET body = '', subject = NULL, error = NULL, peer_phone = NULL,
        metadata = CASE WHEN jsonb_typeof(c.metadata) = 'object'
                     THEN coalesce((SELECT jsonb_object_agg(m.key, m.value) FROM jsonb_each(c.metadata) m WHERE m.key = ANY(${KEPT_METADATA_KEYS}::text[])), '{}'::jsonb)
                     ELSE '{}'::jsonb END
                   || jsonb_build_object('erased_at', now(), 'erased_by', CASE WHEN ${chunk.cutoff}::timestamptz IS NULL THEN 'request' ELSE 'retention' END),
        erased_at = now(), erased_sha256 = encode(sha256(convert_to(c.body, 'UTF8')), 'hex'), updated_at = now()
      FROM target t WHERE c.id = t.id AND t.due
      RETURNING c.id, c.erased_sha256),
    -- The scheduled send that made a record kept its words and number too (README "Scheduled sends"): it goes.
    scheduled AS (DELETE FROM scheduled_sends s USING target t WHERE s.communication_id = t.id AND t.due RETURNING 1)`,
      hash: 'erased_sha256',
      kept: sql`t.due`,
      leftOut: sql`WHEN t.held THEN 'hold' WHEN t.moved THEN 'moved' ELSE 'no longer due'`,
    }),
  // A file goes with its record: its bytes deleted, its name forgotten, its hash kept.
  file: (chunk: TChunk) =>
    eraseChunkSql('file', chunk, {
      target: sql`
      SELECT a.id, coalesce(cm.erased_at IS NOT NULL, false) AS due
      FROM attachments a JOIN chunk ON chunk.item_id = a.id LEFT JOIN communications cm ON cm.id = a.communication_id
      FOR UPDATE OF a`,
      erase: sql`bytes AS (DELETE FROM attachment_chunks b USING target t WHERE b.attachment_id = t.id AND t.due RETURNING 1),
    erased AS (
      UPDATE attachments a SET file_name = NULL, erased_at = now(), updated_at = now(),
        state = CASE WHEN a.state = 'pending' THEN 'failed' ELSE a.state END,
        error = CASE WHEN a.state = 'stored' THEN a.error ELSE 'Erased before it was downloaded.' END,
        next_attempt_at = NULL, locked_until = NULL
      FROM target t WHERE a.id = t.id AND t.due
      RETURNING a.id, a.sha256)`,
      hash: 'sha256',
      kept: sql`t.due`,
      leftOut: sql`ELSE 'record kept'`,
    }),
  // A case's title goes once none of its records is left.
  case: (chunk: TChunk) =>
    eraseChunkSql('case', chunk, {
      target: sql`
      SELECT k.id,
             k.client_id = chunk.listed_client
               AND ${dueBy(chunk, caseErasable(sql`k`), (cutoff) => caseDue(sql`k`, cutoff))} AS due,
             NOT EXISTS (SELECT 1 FROM communications x WHERE x.case_id = k.id AND x.erased_at IS NULL) AS emptied,
             ${isHeld(sql`k.client_id`, sql`k.id`)} AS held
      FROM cases k JOIN chunk ON chunk.item_id = k.id FOR UPDATE OF k`,
      erase: sql`erased AS (
      UPDATE cases k SET erased_sha256 = encode(sha256(convert_to(k.title, 'UTF8')), 'hex'), title = 'Erased case',
        erased_at = now(), updated_at = now()
      FROM target t WHERE k.id = t.id AND t.due AND t.emptied RETURNING k.id, k.erased_sha256)`,
      hash: 'erased_sha256',
      kept: sql`t.due AND t.emptied`,
      leftOut: HELD_OR_NOT_DUE,
    }),
  // A client's name, numbers and contact details go once none of their records or cases is left.
  client: (chunk: TChunk) =>
    eraseChunkSql('client', chunk, {
      target: sql`
      SELECT cl.id,
             ${dueBy(chunk, clientErasable(sql`cl`), (cutoff) => clientDue(sql`cl`, cutoff))} AS due,
             NOT EXISTS (SELECT 1 FROM communications x WHERE x.client_id = cl.id AND x.erased_at IS NULL)
               AND NOT EXISTS (SELECT 1 FROM cases xk WHERE xk.client_id = cl.id AND xk.erased_at IS NULL) AS emptied,
             ${isClientHeld(sql`cl.id`)} AS held
      FROM clients cl JOIN chunk ON chunk.item_id = cl.id FOR UPDATE OF cl`,
      erase: sql`numbers AS (DELETE FROM client_numbers n USING target t WHERE n.client_id = t.id AND t.due AND t.emptied RETURNING n.digits),
    -- What was still to be sent to them, or was never sent, goes (no record holds it); an
    -- out-of-hours reply's mark goes with their numbers.
    scheduled AS (DELETE FROM scheduled_sends s USING target t WHERE s.client_id = t.id AND t.due AND t.emptied RETURNING 1),
    marks AS (DELETE FROM auto_reply_marks m USING numbers n WHERE m.digits = n.digits RETURNING 1),
    threads AS (UPDATE chat_threads ct SET contact_name = NULL FROM target t WHERE ct.thread_key = 'client-' || t.id AND t.due AND t.emptied RETURNING ct.thread_key, ct.inbound),
    -- Nothing in their conversation is for anyone to act on: read for everyone (the inbox lists it no more).
    read AS (
      INSERT INTO read_marks AS r (user_id, thread_key, read_count, read_through_id)
      SELECT u.id, th.thread_key, th.inbound, (SELECT coalesce(max(id), 0) FROM communications) FROM users u CROSS JOIN threads th
      ON CONFLICT (user_id, thread_key) DO UPDATE SET read_count = excluded.read_count, read_through_id = excluded.read_through_id, read_at = now()
      RETURNING 1),
    -- The phones' exports imported to their file hold every message whole: their bytes and names go too
    -- (server/imports/README.md "History from the phone"); the imports' rows keep only the fingerprint.
    exports AS (SELECT i.id, i.attachment_id FROM phone_imports i JOIN target t ON i.client_id = t.id AND t.due AND t.emptied),
    export_bytes AS (DELETE FROM attachment_chunks b USING exports x WHERE b.attachment_id = x.attachment_id RETURNING 1),
    export_files AS (UPDATE attachments a SET file_name = NULL, erased_at = now(), updated_at = now()
                     FROM exports x WHERE a.id = x.attachment_id RETURNING 1),
    export_rows AS (UPDATE phone_imports i SET file_name = 'Erased export', summary = jsonb_set(i.summary, '{participants}', '[]')
                    FROM exports x WHERE i.id = x.id RETURNING 1),
    -- Their erasure requests' notes may name them: they go with the name.
    requests AS (UPDATE erasure_requests e SET note = '' FROM target t WHERE e.client_id = t.id AND t.due AND t.emptied AND e.note <> '' RETURNING 1),
    erased AS (
      UPDATE clients cl SET erased_sha256 = encode(sha256(convert_to(jsonb_build_object('name', cl.name, 'email', cl.email,
          'numbers', (SELECT coalesce(jsonb_agg(n.digits ORDER BY n.digits), '[]'::jsonb) FROM client_numbers n WHERE n.client_id = cl.id))::text, 'UTF8')), 'hex'),
        name = 'Erased client', email = NULL, erased_at = now(), updated_at = now()
      FROM target t WHERE cl.id = t.id AND t.due AND t.emptied
      RETURNING cl.id, cl.erased_sha256)`,
      hash: 'erased_sha256',
      kept: sql`t.due AND t.emptied`,
      leftOut: HELD_OR_NOT_DUE,
    }),
};

/** What a batch erased and left out, as a select list over its `retention_items` rows. */
export const ERASED_TOTALS_SQL = `count(*) FILTER (WHERE kind = 'record' AND erased_at IS NOT NULL)::int AS records,
  count(*) FILTER (WHERE kind = 'file' AND erased_at IS NOT NULL)::int AS files,
  coalesce(sum(bytes) FILTER (WHERE erased_at IS NOT NULL), 0)::text AS bytes,
  count(*) FILTER (WHERE kind = 'case' AND erased_at IS NOT NULL)::int AS cases,
  count(*) FILTER (WHERE kind = 'client' AND erased_at IS NOT NULL)::int AS clients,
  count(*) FILTER (WHERE left_out IS NOT NULL)::int AS left_out`;
export type TErasedTotals = { records: number; files: number; bytes: string; cases: number; clients: number; left_out: number };

export type TItemKind = keyof typeof ERASE_CHUNK_SQL;
/** Records first, then their files, then the cases and clients they emptied. */
export const ERASE_ORDER: TItemKind[] = ['record', 'file', 'case', 'client'];
/** Items one transaction takes: small enough that a chunk commits in well under a second. */
export const CHUNK = { record: 1_000, file: 50, case: 500, client: 200 } as const satisfies Record<TItemKind, number>;

/** Erases one chunk of a batch's items of one kind, in its own transaction; returns how many items it took (0: that kind is finished). */
export async function eraseChunk(batch: { id: string; cutoff: Date | null }, kind: TItemKind, size: number = CHUNK[kind]): Promise<number> {
  const database = longWorkDb();
  return database.transaction(async (transaction) => {
    // A hold placed, or a case reopened, while a chunk runs waits for it; a chunk starting after
    // sees it. Without this a chunk whose statement had already begun would erase what a hold,
    // acknowledged meanwhile, was placed to keep.
    await database.query('LOCK TABLE legal_holds, cases IN SHARE MODE', { transaction });
    const [row] = await queryRows<{ taken: number; erased: number }>(
      ERASE_CHUNK_SQL[kind]({ batchId: batch.id, size, cutoff: batch.cutoff }),
      { transaction, on: database },
    );
    return row?.taken ?? 0;
  });
}
