import { QueryTypes } from 'sequelize';
import { assertSubjectVisible } from '../access';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import type { TReader } from '../core/visibility';
import { readOwnImport } from './commit-import';
import type { TClientImport } from './import-schema';

/** The imports a client's file has had, newest first: for anyone who may see the client (NOT_FOUND otherwise). */
export async function listClientImports(reader: TReader, clientId: number): Promise<TClientImport[]> {
  await assertSubjectVisible(reader, { clientId });
  return db().query<TClientImport>(
    `SELECT i.id AS "importId", i.file_name AS "fileName", i.file_sha256 AS "fileSha256", i.case_id AS "caseId",
            i.committed_at AS "committedAt", CASE WHEN u.id IS NULL THEN NULL ELSE json_build_object('id', u.id, 'name', u.name) END AS "committedBy",
            i.summary->>'firstAt' AS "firstAt", i.summary->>'lastAt' AS "lastAt",
            (i.result->>'imported')::int AS imported, (i.result->>'duplicates')::int AS duplicates, (i.result->>'attachments')::int AS attachments
     FROM phone_imports i LEFT JOIN users u ON u.id = i.committed_by
     WHERE i.client_id = $1 AND i.state = 'committed' ORDER BY i.committed_at DESC, i.id`,
    { bind: [clientId], type: QueryTypes.SELECT },
  );
}

/** Drops a preview the person made and did not commit, with the export it kept: nothing of it is left. */
export async function discardImport(reader: TReader, importId: string): Promise<{ importId: string }> {
  const row = await readOwnImport(reader, importId);
  if (row.state === 'committed') throw new AppError('CONFLICT', 'This export has been imported: it is part of the client’s record now.');
  // The import's row goes with its file (ON DELETE CASCADE).
  await db().query(`DELETE FROM attachments WHERE id = $1 AND communication_id IS NULL`, { bind: [row.attachment_id] });
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
