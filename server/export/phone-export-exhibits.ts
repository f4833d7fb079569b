import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import { exhibitFileName } from './exhibit-file-name';

// The exports a bundle's imported messages came from (server/imports/README.md "History from the
// phone"): each goes in whole, beside the exhibits, so the court has the phone's own file as well as
// the records made from it.

export type TPhoneExport = { path: string; attachmentId: number; sha256: string };

/** The committed imports named, each with its path in the bundle (`phone-exports/<import id>-<name>`). */
export async function phoneExportsOf(importIds: Iterable<string>): Promise<TPhoneExport[]> {
  const ids = [...new Set(importIds)].sort();
  if (ids.length === 0) return [];
  const rows = await db().query<{ id: string; file_name: string; attachment_id: number; file_sha256: string }>(
    `SELECT id, file_name, attachment_id, file_sha256 FROM phone_imports WHERE id = ANY($1::uuid[]) AND state = 'committed' ORDER BY id`,
    { bind: [ids], type: QueryTypes.SELECT },
  );
  return rows.map((row) => ({
    path: `phone-exports/${row.id}-${exhibitFileName(row.file_name, 'application/zip')}`,
    attachmentId: row.attachment_id,
    sha256: row.file_sha256,
  }));
}
