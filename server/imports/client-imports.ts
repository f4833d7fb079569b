import { QueryTypes } from 'sequelize';
import { assertSubjectVisible } from '../access';
import { sqlStateOf } from '../core/db/database-errors';
import { db } from '../core/db/db';
import { queryRows, sql } from '../core/sql';
import { AppError } from '../core/errors';
import { visibleTo, type TReader } from '../core/visibility';
import { readOwnImport } from './commit-import';
import type { TClientImport } from './import-schema';

/** The imports a client's file has had, newest first: for anyone who may see the client (NOT_FOUND otherwise). */
export async function listClientImports(reader: TReader, clientId: number): Promise<TClientImport[]> {
  await assertSubjectVisible(reader, { clientId });
  // One imported to a case walled from the reader is not theirs to see, as the case is not.
  return queryRows<TClientImport>(
    sql`SELECT i.id AS "importId", i.file_name AS "fileName", i.file_sha256 AS "fileSha256", i.case_id AS "caseId",
            i.committed_at AS "committedAt", CASE WHEN u.id IS NULL THEN NULL ELSE json_build_object('id', u.id, 'name', u.name) END AS "committedBy",
            i.summary->>'firstAt' AS "firstAt", i.summary->>'lastAt' AS "lastAt",
            (i.result->>'imported')::int AS imported, (i.result->>'duplicates')::int AS duplicates, (i.result->>'attachments')::int AS attachments
     FROM phone_imports i LEFT JOIN users u ON u.id = i.committed_by
     WHERE i.client_id = ${clientId} AND i.state = 'committed' AND ${visibleTo(reader, sql`i.client_id`, sql`i.case_id`)}
     ORDER BY i.committed_at DESC, i.id`,
  );
}

/** Drops a preview the person made and did not commit, with the export it kept: nothing of it is left. */
export async function discardImport(reader: TReader, importId: string): Promise<{ importId: string }> {
  await readOwnImport(reader, importId);
  await db().transaction(async (transaction) => {
    // NOWAIT: a commit of it under way holds the row; that one decides, and a discard does not wait for it.
    const [row] = await db()
      .query<{ state: string; attachment_id: number }>('SELECT state, attachment_id FROM phone_imports WHERE id = $1 FOR UPDATE NOWAIT', {
        bind: [importId],
        type: QueryTypes.SELECT,
        transaction,
      })
      .catch((error: unknown) => {
        if (sqlStateOf(error) === '55P03') throw new AppError('CONFLICT', 'This export is being imported: it cannot be discarded now.');
        throw error;
      });
    if (!row) throw new AppError('NOT_FOUND', 'No such import: upload the export again.');
    if (row.state === 'committed') throw new AppError('CONFLICT', 'This export has been imported: it is part of the client’s record now.');
    // The import's row goes with its file (ON DELETE CASCADE).
    await db().query('DELETE FROM attachments WHERE id = $1 AND communication_id IS NULL', { bind: [row.attachment_id], transaction });
  });
  return { importId };
}

/** How far a commit of the person's own import has got (`done` of `total` messages); null before it starts. */
export async function readImportProgress(reader: TReader, importId: string): Promise<{ done: number; total: number } | null> {
  await readOwnImport(reader, importId);
  const [row] = await db().query<{ done: number; total: number }>('SELECT done, total FROM phone_import_progress WHERE import_id = $1', {
    bind: [importId],
    type: QueryTypes.SELECT,
  });
  return row ?? null;
}
