import { QueryTypes, type Transaction } from 'sequelize';
import type { TCommunication } from '../../shared/communication';
import { Attachment } from '../core/db/models/index';
import { renderTemplateBody } from '../provider';
import { findTemplate } from '../templates';
import { AppError } from '../core/errors';
import { db } from '../core/db/db';
import { assertRecordVisible } from '../access';
import type { TSendDeps } from './send-deps';
import { resolveRecipient, type TRecipientInput, type TSendInput, type TSendTemplateInput } from './send-recipient';
import { EchoedSend, findEchoedSend, recordAndSend } from './record-and-send';

/**
 * Runs a send once per echo id: a queued send the browser tries again (its tab closed mid-request,
 * the answer lost) gets the first record back, whatever became of it, and nothing is sent again.
 */
async function sendOnce(
  input: TRecipientInput,
  send: (metadata: { echo_id?: string }) => Promise<TCommunication>,
): Promise<TCommunication> {
  if (!input.echoId) return send({});
  const earlier = await findEchoedSend(input.userId, input.echoId);
  // Walled since (README "Ethical walls"): the sender sees the first record only while they may.
  if (earlier && input.reader) await assertRecordVisible(input.reader, earlier.id);
  if (earlier) return earlier;
  return send({ echo_id: input.echoId }).catch((error: unknown) => {
    if (error instanceof EchoedSend) return error.record;
    throw error;
  });
}

export async function sendChatMessage(deps: TSendDeps, input: TSendInput): Promise<TCommunication> {
  return sendOnce(input, (echo) => sendChatMessageOnce(deps, input, echo));
}

async function sendChatMessageOnce(deps: TSendDeps, input: TSendInput, echo: { echo_id?: string }): Promise<TCommunication> {
  const body = (input.body ?? '').trim();
  if (input.attachmentId !== undefined) return sendFileMessage(deps, input, input.attachmentId, body, false, echo);
  if (!body) throw new AppError('INVALID_INPUT', 'Type a message first.', { body: ['Type a message first.'] });
  const recipient = await resolveRecipient(deps, input);
  return recordAndSend(deps, recipient, {
    body,
    sentBy: input.userId ?? null,
    metadata: { ...(input.retryOf ? { retry_of: input.retryOf } : {}), ...(input.test ? { test: true } : {}), ...input.marks, ...echo },
    attach: input.inRecordTransaction,
    send: (provider, to) => provider.sendText(to, body),
  });
}

/**
 * Sends an uploaded file with its caption: live, the bytes are streamed from the store to the
 * provider (`POST /media`), then sent by the id it gives; demo, it is recorded and nothing leaves.
 * An upload is sent once, by the person who uploaded it: a second send of it is a CONFLICT.
 * `resend`: the file of a failed message, sent again as a copy made in the transaction that writes
 * the new attempt (so a refused retry leaves no copy behind).
 */
export async function sendFileMessage(
  deps: TSendDeps,
  input: TSendInput,
  attachmentId: number,
  caption: string,
  resend = false,
  echo: { echo_id?: string } = {},
): Promise<TCommunication> {
  const file = await Attachment.findByPk(attachmentId);
  if (resend) {
    if (!file || file.state !== 'stored') throw new AppError('CONFLICT', 'The file of that message is no longer stored: upload it again.');
  } else {
    if (!file || file.state !== 'stored' || (input.userId !== undefined && file.uploadedBy !== input.userId)) {
      throw new AppError('NOT_FOUND', 'That file was not found: upload it again.', { attachmentId: ['Upload the file again.'] });
    }
    if (file.communicationId !== null) throw new AppError('CONFLICT', 'That file has already been sent; upload it again to send it again.');
  }
  if (file.kind === 'sticker') throw new AppError('INVALID_INPUT', 'Stickers cannot be sent from here.');
  const kind = file.kind;
  const recipient = await resolveRecipient(deps, input);
  const fileName = file.fileName ?? `file-${file.id}`;
  let sentId = file.id; // the copy's id, for a resend
  return recordAndSend(deps, recipient, {
    body: kind === 'audio' ? '' : caption,
    sentBy: input.userId ?? null,
    metadata: { kind, ...(input.retryOf ? { retry_of: input.retryOf } : {}), ...input.marks, ...echo },
    attach: async (recordId, transaction) => {
      await input.inRecordTransaction?.(recordId, transaction);
      if (resend) {
        sentId = await copyUpload(file.id, recordId, input.userId, transaction);
        return;
      }
      const [claimed] = await db().query<{ id: number }>(
        'UPDATE attachments SET communication_id = $2, updated_at = now() WHERE id = $1 AND communication_id IS NULL RETURNING id',
        { bind: [file.id, recordId], type: QueryTypes.SELECT, transaction },
      );
      if (!claimed) throw new AppError('CONFLICT', 'That file has already been sent; upload it again to send it again.');
    },
    send: async (provider, to, checkpoint) => {
      const uploaded = await provider.uploadMedia(deps.mediaStore.read(sentId), {
        mimeType: file.mimeType,
        fileName,
        size: Number(file.size ?? 0),
      });
      await Attachment.update({ providerMediaId: uploaded.id }, { where: { id: sentId } });
      await checkpoint();
      return provider.sendMedia(to, { kind, id: uploaded.id, caption: caption || undefined, fileName });
    },
  });
}

/** The same bytes (copied inside the database) joined to the retry's record, in its transaction. */
async function copyUpload(attachmentId: number, recordId: number, userId: number | undefined, transaction: Transaction): Promise<number> {
  const [copy] = await db().query<{ id: number }>(
    `INSERT INTO attachments (communication_id, kind, mime_type, file_name, size, sha256, state, uploaded_by)
     SELECT $3, kind, mime_type, file_name, size, sha256, 'stored', coalesce($2, uploaded_by) FROM attachments WHERE id = $1 AND state = 'stored'
     RETURNING id`,
    { bind: [attachmentId, userId ?? null, recordId], type: QueryTypes.SELECT, transaction },
  );
  if (!copy) throw new AppError('CONFLICT', 'The file of that message is no longer stored: upload it again.');
  await db().query(
    'INSERT INTO attachment_chunks (attachment_id, seq, data) SELECT $2, seq, data FROM attachment_chunks WHERE attachment_id = $1',
    {
      bind: [attachmentId, copy.id],
      transaction,
    },
  );
  return copy.id;
}

/**
 * Sends an approved template (the way to reach a client outside the 24-hour window). Everything is
 * checked before any provider call: the template is known and approved in that language, and every
 * parameter is given and not empty. The record keeps the text the client reads and the template.
 */
export async function sendTemplateMessage(deps: TSendDeps, input: TSendTemplateInput): Promise<TCommunication> {
  return sendOnce(input, (echo) => sendTemplateMessageOnce(deps, input, echo));
}

async function sendTemplateMessageOnce(deps: TSendDeps, input: TSendTemplateInput, echo: { echo_id?: string }): Promise<TCommunication> {
  const template = await findTemplate(input.name, input.language);
  if (!template)
    throw new AppError(
      'INVALID_INPUT',
      `There is no template "${input.name}" in ${input.language}: refresh the templates or choose another.`,
      { name: ['Choose one of the approved templates.'] },
    );
  if (template.status !== 'APPROVED') {
    throw new AppError(
      'INVALID_INPUT',
      `The template "${input.name}" (${input.language}) is ${template.status.toLowerCase()} at the provider, not approved: choose another.`,
      { name: ['Choose an approved template.'] },
    );
  }
  const params = input.params.map((p) => p.trim());
  if (params.length !== template.paramCount) {
    throw new AppError(
      'INVALID_INPUT',
      `The template "${input.name}" takes ${template.paramCount} value${template.paramCount === 1 ? '' : 's'}, not ${params.length}.`,
      { params: [`Fill in all ${template.paramCount} fields.`] },
    );
  }
  const empty = params.findIndex((p) => !p);
  if (empty >= 0)
    throw new AppError('INVALID_INPUT', `Fill in field ${empty + 1} of the template.`, { params: [`Field ${empty + 1} is empty.`] });
  const recipient = await resolveRecipient(deps, input);
  return recordAndSend(deps, recipient, {
    body: renderTemplateBody(template.body, params),
    sentBy: input.userId ?? null,
    metadata: {
      template: { name: template.name, language: template.language, params },
      ...(input.retryOf ? { retry_of: input.retryOf } : {}),
      ...(input.test ? { test: true } : {}),
      ...input.marks,
      ...echo,
    },
    attach: input.inRecordTransaction,
    send: (provider, to) => provider.sendTemplate(to, { name: template.name, language: template.language, params }),
  });
}
