import { db } from '../core/db/db';
import { queryRows, sql } from '../core/sql';
import { visibleTo } from '../core/visibility';
import { exhibitFileName } from './exhibit-file-name';

// The exports a bundle's imported messages came from (server/imports/README.md "History from the
// phone"): each goes in whole, beside the exhibits, so the court has the phone's own file as well as
// the records made from it.

export type TPhoneExport = { path: string; attachmentId: number; sha256: string };

/**
 * The committed imports named, each with its path in the bundle (`phone-exports/<import id>-<name>`).
 * An export holds every message it was made of, so it goes in only when the exporter may see every
 * imported record of that client and the case it was imported to: one message refiled behind a wall,
 * and the whole file stays out. One erased stays out too.
 */
export async function phoneExportsOf(importIds: Iterable<string>, viewerId: number): Promise<TPhoneExport[]> {
  const ids = [...new Set(importIds)].sort();
  if (ids.length === 0) return [];
  const rows = await queryRows<{ id: string; file_name: string; attachment_id: number; file_sha256: string }>(
    sql`SELECT i.id, i.file_name, i.attachment_id, i.file_sha256 FROM phone_imports i
        JOIN attachments a ON a.id = i.attachment_id AND a.erased_at IS NULL
        WHERE i.id = ANY(${ids}::uuid[]) AND i.state = 'committed' AND ${visibleTo({ id: viewerId }, sql`i.client_id`, sql`i.case_id`)}
          AND NOT EXISTS (SELECT 1 FROM communications c WHERE c.client_id = i.client_id AND c.status = 'imported'
                            AND NOT ${visibleTo({ id: viewerId }, sql`c.client_id`, sql`c.case_id`)})
        ORDER BY i.id`,
    { on: db() },
  );
  return rows.map((row) => ({
    path: `phone-exports/${row.id}-${exhibitFileName(row.file_name, 'application/zip')}`,
    attachmentId: row.attachment_id,
    sha256: row.file_sha256,
  }));
}
