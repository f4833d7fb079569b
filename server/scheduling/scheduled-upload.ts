import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import { Attachment } from '../core/db/models/index';
import { AppError } from '../core/errors';

export const ALREADY_SCHEDULED = 'That file is already scheduled to be sent; upload it again to send it again.';

/**
 * A file may wait in a scheduled send on the rule a send now applies (messaging's sendFileMessage):
 * the caller's own upload, stored and not yet sent; and it waits in one scheduled send at a time
 * (migration 0021's unique index holds that against a race). `field`: where a refusal points.
 */
export async function assertUploadMayBeScheduled(userId: number, attachmentId: number, field = 'attachmentId'): Promise<{ kind: string }> {
  const file = await Attachment.findByPk(attachmentId, { attributes: ['id', 'state', 'uploadedBy', 'communicationId', 'kind'] });
  if (!file || file.state !== 'stored' || file.uploadedBy !== userId)
    throw new AppError('NOT_FOUND', 'That file was not found: upload it again.', { [field]: ['Upload the file again.'] });
  if (file.communicationId !== null) throw new AppError('CONFLICT', 'That file has already been sent; upload it again to send it again.');
  if (file.kind === 'sticker') throw new AppError('INVALID_INPUT', 'Stickers cannot be sent from here.');
  const [waiting] = await db().query(`SELECT 1 FROM scheduled_sends WHERE attachment_id = $1 AND state = 'scheduled'`, {
    bind: [attachmentId],
    type: QueryTypes.SELECT,
  });
  if (waiting) throw new AppError('CONFLICT', ALREADY_SCHEDULED);
  return { kind: file.kind };
}
