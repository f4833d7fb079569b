import { QueryTypes } from 'sequelize';
import { UPLOAD_LIMITS } from '../../../shared/media-limits';
import { Attachment } from '../../core/db/models/index';
import type { TMediaStore } from '../media-store';
import type { TUploadedFile } from '../../../shared/media-limits';
import { db } from '../../core/db/db';
import { UploadRefusal } from '../upload-refusal';
import { readUploadParts } from './resumable-store';
import { uploadSlots } from './upload-slots';

type TFinishRow = {
  size: number;
  offset: number;
  kind: TUploadedFile['kind'];
  mime_type: string;
  file_name: string;
  attachment_id: number | null;
};

/**
 * Turns a fully received resumable upload into the same `attachments` row `POST /api/media` makes
 * (bytes copied from the upload's parts into the media store, hashed on the way), in one
 * transaction that also records the attachment on the upload and drops the parts. Idempotent: the
 * upload's row is locked, and once finished the same attachment is returned, so the last PATCH and
 * a browser asking again after a lost answer (on any instance) agree.
 */
export async function finishResumableUpload(deps: { store: TMediaStore }, id: string, userId: number): Promise<TUploadedFile> {
  // A few copies into the database at a time: the pool is shared with the webhook.
  const done = await uploadSlots.takeDatabaseTurn();
  try {
    return await db().transaction(async (transaction) => {
      const [row] = await db().query<TFinishRow>(
        `SELECT size, "offset", kind, mime_type, file_name, attachment_id FROM resumable_uploads
         WHERE id = $1 AND user_id = $2 FOR UPDATE`,
        { bind: [id, userId], type: QueryTypes.SELECT, transaction },
      );
      if (!row) throw new UploadRefusal(404, 'No such upload.');
      if (row.attachment_id !== null) {
        const attachment = await Attachment.findByPk(row.attachment_id, { transaction });
        if (!attachment || attachment.communicationId !== null) throw new UploadRefusal(410, 'This upload has already been sent.');
        return describeAttachment(attachment);
      }
      if (Number(row.offset) < Number(row.size)) {
        throw new UploadRefusal(409, `Only ${row.offset} of ${row.size} bytes have arrived: resume the upload.`);
      }
      const attachment = await Attachment.create(
        { communicationId: null, kind: row.kind, mimeType: row.mime_type, fileName: row.file_name, state: 'pending', uploadedBy: userId },
        { transaction },
      );
      const stored = await deps.store.write(attachment.id, readUploadParts(id, transaction), {
        maxBytes: UPLOAD_LIMITS[row.kind],
        transaction,
      });
      if (stored.size !== Number(row.size)) throw new Error(`upload ${id} holds ${stored.size} of ${row.size} bytes`);
      await attachment.update({ size: stored.size, sha256: stored.sha256, state: 'stored' }, { transaction });
      await db().query('UPDATE resumable_uploads SET attachment_id = $2 WHERE id = $1', {
        bind: [id, attachment.id],
        transaction,
      });
      await db().query('DELETE FROM resumable_upload_parts WHERE upload_id = $1', { bind: [id], transaction });
      return describeAttachment(attachment);
    });
  } finally {
    done();
  }
}

function describeAttachment(attachment: Attachment): TUploadedFile {
  return {
    attachmentId: attachment.id,
    kind: attachment.kind as TUploadedFile['kind'],
    mimeType: attachment.mimeType,
    fileName: attachment.fileName ?? 'file',
    size: Number(attachment.size),
  };
}
