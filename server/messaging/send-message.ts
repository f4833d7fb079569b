import { QueryTypes, type Transaction } from 'sequelize';
import type { TAttachmentKind, TCommunication } from '../../shared/communication';
import { Attachment, Communication } from '../core/db/models/index';
import { renderTemplateBody } from '../provider';
import { findTemplate, MEDIA_HEADER_FORMATS, type TMediaHeaderFormat, type TTemplateDto } from '../templates';
import { AppError } from '../core/errors';
import { db } from '../core/db/db';
import type { TSendDeps } from './send-deps';
import { resolveRecipient, type TSendInput, type TSendTemplateInput } from './send-recipient';
import { recordAndSend } from './record-and-send';
import { sendOnce } from './send-once';
import { sendButtonsMessageOnce } from './send-buttons';

export async function sendChatMessage(deps: TSendDeps, input: TSendInput): Promise<TCommunication> {
  return sendOnce(input, (echo) => sendChatMessageOnce(deps, input, echo));
}

async function sendChatMessageOnce(deps: TSendDeps, input: TSendInput, echo: { echo_id?: string }): Promise<TCommunication> {
  const body = (input.body ?? '').trim();
  if (input.attachmentId !== undefined) return sendFileMessage(deps, input, input.attachmentId, body, false, echo);
  if (!body) throw new AppError('INVALID_INPUT', 'Type a message first.', { body: ['Type a message first.'] });
  // A question with buttons is retried with its buttons (server/messaging/README.md "Quick-reply buttons"), never as plain text.
  const buttons =
    input.retryOf !== undefined ? (await Communication.findByPk(input.retryOf, { attributes: ['metadata'] }))?.metadata.buttons : undefined;
  if (buttons?.length) return sendButtonsMessageOnce(deps, { ...input, body, buttons }, echo);
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
  const file = resend ? await findStoredFile(attachmentId) : await findOwnUpload(attachmentId, input.userId, 'attachmentId');
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
      await claimUpload(file.id, recordId, transaction);
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

const ALREADY_SENT = 'That file has already been sent; upload it again to send it again.';
const NO_LONGER_STORED = 'The file of that message is no longer stored: upload it again.';

/** An upload of this person's (`POST /api/media`), stored and not sent yet: what a send may take. */
async function findOwnUpload(attachmentId: number, userId: number | undefined, field: string): Promise<Attachment> {
  const file = await Attachment.findByPk(attachmentId);
  if (!file || file.state !== 'stored' || (userId !== undefined && file.uploadedBy !== userId))
    throw new AppError('NOT_FOUND', 'That file was not found: upload it again.', { [field]: ['Upload the file again.'] });
  if (file.communicationId !== null) throw new AppError('CONFLICT', ALREADY_SENT);
  return file;
}

/** A failed message's file, to be sent again as a copy. */
async function findStoredFile(attachmentId: number | undefined): Promise<Attachment> {
  const file = attachmentId === undefined ? null : await Attachment.findByPk(attachmentId);
  if (!file || file.state !== 'stored') throw new AppError('CONFLICT', NO_LONGER_STORED);
  return file;
}

const HELD_BY_SCHEDULED_SEND =
  'That file is waiting in a scheduled message: cancel that one first, or upload the file again to send it now.';

/**
 * The upload joins the record being written, in its transaction; one already taken is a CONFLICT
 * (sent once), and so is one a scheduled send still holds (server/messaging/README.md "Scheduled sends": the scheduled
 * send itself ends its wait in this transaction before its file is claimed).
 */
async function claimUpload(attachmentId: number, recordId: number, transaction: Transaction): Promise<void> {
  const [claimed] = await db().query<{ id: number | null; held: boolean }>(
    `WITH held AS (SELECT EXISTS (SELECT 1 FROM scheduled_sends s WHERE s.attachment_id = $1 AND s.state = 'scheduled') AS held),
     claimed AS (
       UPDATE attachments SET communication_id = $2, updated_at = now()
       WHERE id = $1 AND communication_id IS NULL AND NOT (SELECT held FROM held)
         -- A phone's export read for an import is the import's (server/imports/README.md "History from the phone").
         AND NOT EXISTS (SELECT 1 FROM phone_imports i WHERE i.attachment_id = $1) RETURNING id)
     SELECT (SELECT id FROM claimed) AS id, (SELECT held FROM held) AS held`,
    { bind: [attachmentId, recordId], type: QueryTypes.SELECT, transaction },
  );
  if (claimed?.held) throw new AppError('CONFLICT', HELD_BY_SCHEDULED_SEND);
  if (!claimed?.id) throw new AppError('CONFLICT', ALREADY_SENT);
}

/** The same bytes (copied inside the database) joined to the retry's record, in its transaction. */
async function copyUpload(attachmentId: number, recordId: number, userId: number | undefined, transaction: Transaction): Promise<number> {
  const [copy] = await db().query<{ id: number }>(
    `INSERT INTO attachments (communication_id, kind, mime_type, file_name, size, sha256, state, uploaded_by)
     SELECT $3, kind, mime_type, file_name, size, sha256, 'stored', coalesce($2, uploaded_by) FROM attachments WHERE id = $1 AND state = 'stored'
     RETURNING id`,
    { bind: [attachmentId, userId ?? null, recordId], type: QueryTypes.SELECT, transaction },
  );
  if (!copy) throw new AppError('CONFLICT', NO_LONGER_STORED);
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

/**
 * The template chosen and its values, checked before anything is written or sent: known and
 * approved at the provider in that language, with every value given and not empty. Returns it, and
 * the values trimmed as they are kept.
 */
export async function checkTemplateChoice(
  choice: { name: string; language: string; params: string[] },
  firmNumberId = 1,
): Promise<{ template: NonNullable<Awaited<ReturnType<typeof findTemplate>>>; params: string[] }> {
  // Each firm number has its own approved templates (server/numbers/README.md "Several numbers").
  const template = await findTemplate(choice.name, choice.language, firmNumberId);
  if (!template)
    throw new AppError(
      'INVALID_INPUT',
      `There is no template "${choice.name}" in ${choice.language}: refresh the templates or choose another.`,
      { name: ['Choose one of the approved templates.'] },
    );
  if (template.status !== 'APPROVED') {
    throw new AppError(
      'INVALID_INPUT',
      `The template "${choice.name}" (${choice.language}) is ${template.status.toLowerCase()} at the provider, not approved: choose another.`,
      { name: ['Choose an approved template.'] },
    );
  }
  const params = choice.params.map((p) => p.trim());
  if (params.length !== template.paramCount) {
    throw new AppError(
      'INVALID_INPUT',
      `The template "${choice.name}" takes ${template.paramCount} value${template.paramCount === 1 ? '' : 's'}, not ${params.length}.`,
      { params: [`Fill in all ${template.paramCount} fields.`] },
    );
  }
  const empty = params.findIndex((p) => !p);
  if (empty >= 0)
    throw new AppError('INVALID_INPUT', `Fill in field ${empty + 1} of the template.`, { params: [`Field ${empty + 1} is empty.`] });
  return { template, params };
}

async function sendTemplateMessageOnce(deps: TSendDeps, input: TSendTemplateInput, echo: { echo_id?: string }): Promise<TCommunication> {
  const recipient = await resolveRecipient(deps, input);
  const { template, params } = await checkTemplateChoice(input, recipient.firmNumberId);
  const header = await findTemplateHeader(input, template);
  const templateKept = { name: template.name, language: template.language, params };
  let headerFileId = header?.file.id; // the copy's id, for a retry
  return recordAndSend(deps, recipient, {
    body: renderTemplateBody(template.body, params),
    sentBy: input.userId ?? null,
    metadata: {
      template: { ...templateKept, ...(header ? { header: { kind: header.kind } } : {}) },
      // A record with a file says its kind, as every file's does (the thread loads its files by it).
      ...(header ? { kind: header.kind } : {}),
      ...(input.retryOf ? { retry_of: input.retryOf } : {}),
      ...(input.test ? { test: true } : {}),
      ...input.marks,
      ...echo,
    },
    attach: async (recordId, transaction) => {
      await input.inRecordTransaction?.(recordId, transaction);
      if (!header) return;
      if (header.resend) headerFileId = await copyUpload(header.file.id, recordId, input.userId, transaction);
      else await claimUpload(header.file.id, recordId, transaction);
    },
    send: async (provider, to, checkpoint) => {
      if (!header || headerFileId === undefined) return provider.sendTemplate(to, templateKept);
      // The header's file goes up first, as a file send's does (server/media/README.md "Files"); then the template names it.
      const fileName = header.file.fileName ?? `file-${header.file.id}`;
      const uploaded = await provider.uploadMedia(deps.mediaStore.read(headerFileId), {
        mimeType: header.file.mimeType,
        fileName,
        size: Number(header.file.size ?? 0),
      });
      await Attachment.update({ providerMediaId: uploaded.id }, { where: { id: headerFileId } });
      await checkpoint();
      return provider.sendTemplate(to, { ...templateKept, header: { kind: header.kind, id: uploaded.id, fileName } });
    },
  });
}

const HEADER_KIND: Record<TMediaHeaderFormat, TTemplateHeaderKind> = { DOCUMENT: 'document', IMAGE: 'image', VIDEO: 'video' };
type TTemplateHeaderKind = 'document' | 'image' | 'video';
const A_FILE_OF_KIND: Record<TAttachmentKind, string> = {
  document: 'a document',
  image: 'a photo',
  video: 'a video',
  audio: 'an audio file',
  sticker: 'a sticker',
};

/**
 * The file a template's document, image or video header is sent with (server/messaging/README.md "Sending messages",
 * Approved templates), checked before anything is written: a header only for a template that has
 * one and always for one that does, a file of the header's kind (a photo is not a document), and
 * the sender's own upload not sent yet — or, on a retry, the failed record's file, sent as a copy.
 */
async function findTemplateHeader(
  input: TSendTemplateInput,
  template: TTemplateDto,
): Promise<{ kind: TTemplateHeaderKind; file: Attachment; resend: boolean } | null> {
  const format = MEDIA_HEADER_FORMATS.find((f) => f === template.headerFormat);
  const kind = format ? HEADER_KIND[format] : null;
  if (!kind) {
    if (input.header)
      throw new AppError(
        'INVALID_INPUT',
        `The template "${template.name}" has no document, photo or video header: send it without a file.`,
        {
          header: ['This template takes no file.'],
        },
      );
    return null;
  }
  const wanted = A_FILE_OF_KIND[kind];
  if (!input.header)
    throw new AppError('INVALID_INPUT', `The template "${template.name}" is sent with ${wanted} in its header: attach one.`, {
      header: [`Attach ${wanted}.`],
    });
  let file: Attachment;
  let resend = false;
  if ('attachmentId' in input.header) {
    file = await findOwnUpload(input.header.attachmentId, input.userId, 'header');
  } else {
    // A retry names the header's kind only: its file is the failed record's own.
    if (input.retryOf === undefined)
      throw new AppError('INVALID_INPUT', `Attach ${wanted} for the template's header.`, { header: [`Attach ${wanted}.`] });
    const [kept] = await Attachment.findAll({
      where: { communicationId: input.retryOf },
      attributes: ['id'],
      order: [['id', 'ASC']],
      limit: 1,
    });
    file = await findStoredFile(kept?.id);
    resend = true;
  }
  if (file.kind !== kind)
    throw new AppError(
      'INVALID_INPUT',
      `The template "${template.name}" needs ${wanted} in its header, not ${A_FILE_OF_KIND[file.kind]}.`,
      {
        header: [`Attach ${wanted}.`],
      },
    );
  return { kind, file, resend };
}
