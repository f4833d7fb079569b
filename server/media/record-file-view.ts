import { actorOf, recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import type { TReader } from '../core/visibility';

/**
 * Reading a file joins the trail once per person, file and day (server/records/README.md "Records"): a player's range
 * requests, a reload, a second look the same day add nothing, while someone reading file after file
 * leaves one row for each. The day's mark and its audit row commit together.
 */
export async function recordFileView(reader: TReader, file: { id: number; communicationId: number | null; size: number }): Promise<void> {
  await db().transaction(async (transaction) => {
    const [marked] = await db().query(
      `INSERT INTO file_views (user_id, attachment_id, day) VALUES ($1, $2, (now() AT TIME ZONE 'UTC')::date)
       ON CONFLICT DO NOTHING RETURNING 1`,
      { bind: [reader.id, file.id], transaction },
    );
    if (marked.length === 0) return;
    await recordAuditEvent(
      {
        actor: actorOf(reader),
        action: 'media.view',
        subject: file.communicationId === null ? `attachment:${file.id}` : `communication:${file.communicationId}`,
        detail: { attachmentId: file.id, communicationId: file.communicationId, bytes: file.size },
      },
      transaction,
    );
  });
}
