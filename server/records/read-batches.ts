import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, raw, sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { countItemsHiddenFrom, type TBatchCounts } from './retention-batches';

const NO_BATCH = 'There is no such batch.';

export type TBatchSubject = { kind: 'client' | 'case'; id: number; label: string; leftOut: string | null };
export type TBatchView = {
  id: string;
  kind: 'retention' | 'erasure';
  state: 'previewed' | 'approved' | 'done' | 'superseded';
  cutoff: Date | null;
  retentionYears: number | null;
  createdAt: Date;
  approvedBy: { id: number; name: string } | null;
  approvedAt: Date | null;
  finishedAt: Date | null;
  /** As previewed. */
  counts: TBatchCounts;
  /** Items dealt with so far (erased or left out) of all of them: the progress of an approved batch. */
  progress: { done: number; total: number };
  erased: { records: number; files: number; bytes: number };
  leftOut: number;
  /** The clients and cases in it the reader may see (names as they were when previewed, or now), at most 200. */
  subjects: TBatchSubject[];
  /** How many of its clients and cases are in matters walled from the reader. */
  hiddenSubjects: number;
  certificateSha256: string | null;
};

type TBatchRow = {
  id: string;
  kind: 'retention' | 'erasure';
  state: TBatchView['state'];
  cutoff: Date | null;
  retention_years: number | null;
  created_at: Date;
  approved_by: number | null;
  approver: string | null;
  approved_at: Date | null;
  finished_at: Date | null;
  clients: number;
  cases: number;
  records: number;
  files: number;
  bytes: string;
  certificate_sha256: string | null;
  done: number;
  total: number;
  erased_records: number;
  erased_files: number;
  erased_bytes: string;
  left_out: number;
};

const BATCH_SELECT = `
  SELECT b.id, b.kind, b.state, b.cutoff, b.retention_years, b.created_at, b.approved_by, u.name AS approver, b.approved_at,
         b.finished_at, b.clients, b.cases, b.records, b.files, b.bytes::text, b.certificate_sha256, p.*
  FROM retention_batches b LEFT JOIN users u ON u.id = b.approved_by,
  LATERAL (SELECT count(*) FILTER (WHERE erased_at IS NOT NULL OR left_out IS NOT NULL)::int AS done, count(*)::int AS total,
                  count(*) FILTER (WHERE kind = 'record' AND erased_at IS NOT NULL)::int AS erased_records,
                  count(*) FILTER (WHERE kind = 'file' AND erased_at IS NOT NULL)::int AS erased_files,
                  coalesce(sum(bytes) FILTER (WHERE erased_at IS NOT NULL), 0)::text AS erased_bytes,
                  count(*) FILTER (WHERE left_out IS NOT NULL)::int AS left_out
           FROM retention_items i WHERE i.batch_id = b.id) p`;

function viewOf(b: TBatchRow, subjects: TBatchSubject[], hiddenSubjects: number): TBatchView {
  return {
    id: b.id,
    kind: b.kind,
    state: b.state,
    cutoff: b.cutoff ? new Date(b.cutoff) : null,
    retentionYears: b.retention_years,
    createdAt: new Date(b.created_at),
    approvedBy: b.approved_by === null ? null : { id: b.approved_by, name: b.approver ?? 'Former user' },
    approvedAt: b.approved_at ? new Date(b.approved_at) : null,
    finishedAt: b.finished_at ? new Date(b.finished_at) : null,
    counts: { clients: b.clients, cases: b.cases, records: b.records, files: b.files, bytes: Number(b.bytes) },
    progress: { done: b.done, total: b.total },
    erased: { records: b.erased_records, files: b.erased_files, bytes: Number(b.erased_bytes) },
    leftOut: b.left_out,
    subjects,
    hiddenSubjects,
    certificateSha256: b.certificate_sha256,
  };
}

/** One batch, with the clients and cases in it that the reader may see (directors). */
export async function readBatch(reader: TReader, batchId: string): Promise<TBatchView> {
  const [batch] = await db().query<TBatchRow>(`${BATCH_SELECT} WHERE b.id = $1`, { bind: [batchId], type: QueryTypes.SELECT });
  if (!batch) throw new AppError('NOT_FOUND', NO_BATCH);
  // An erasure request's batch is one client's: walled from them, it does not exist for the reader.
  if (batch.kind === 'erasure' && (await countItemsHiddenFrom(reader, batchId)) > 0) throw new AppError('NOT_FOUND', NO_BATCH);
  const subjects = await queryRows<TBatchSubject & { visible: boolean }>(
    sql`SELECT i.kind, i.item_id AS id, i.left_out AS "leftOut",
            CASE i.kind WHEN 'client' THEN c.name ELSE k.reference || ' ' || k.title END AS label,
            ${visibleTo(reader, sql`i.client_id`, sql`CASE WHEN i.kind = 'case' THEN i.item_id END`)} AS visible
     FROM retention_items i LEFT JOIN clients c ON i.kind = 'client' AND c.id = i.item_id LEFT JOIN cases k ON i.kind = 'case' AND k.id = i.item_id
     WHERE i.batch_id = ${batchId} AND i.kind IN ('client', 'case')
     ORDER BY i.kind DESC, i.item_id`,
  );
  const visible = subjects.filter((s) => s.visible);
  return viewOf(
    batch,
    visible.slice(0, 200).map(({ visible: _visible, ...s }) => s),
    subjects.length - visible.length,
  );
}

/**
 * The latest batches, newest first (directors): what was previewed, approved and destroyed, and by whom.
 * Told as `batch` tells each one: an erasure batch of a client walled from the reader is not listed,
 * and a retention batch says how many of its clients and cases are walled (`hiddenSubjects`).
 */
export async function listBatches(reader: TReader): Promise<TBatchView[]> {
  const hidden = sql`FROM retention_items i WHERE i.batch_id = b.id AND NOT ${visibleTo(reader, sql`i.client_id`, sql`i.case_id`)}`;
  const rows = await queryRows<TBatchRow & { hidden_subjects: number }>(
    sql`SELECT * FROM (${raw(BATCH_SELECT)}) b,
        LATERAL (SELECT count(*)::int AS hidden_subjects ${hidden} AND i.kind IN ('client', 'case')) h
        -- A preview that found nothing to destroy is no part of the history (it is still audited).
        WHERE (b.kind = 'retention' OR NOT EXISTS (SELECT 1 ${hidden})) AND NOT (b.total = 0 AND b.state IN ('previewed', 'superseded'))
        ORDER BY b.created_at DESC LIMIT 20`,
  );
  return rows.map((b) => viewOf(b, [], b.hidden_subjects));
}
