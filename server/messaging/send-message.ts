import { randomUUID } from 'node:crypto';
import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { setTimeout as delay } from 'node:timers/promises';
import type { TCommunication } from '../../shared/communication';
import { Attachment, Case, Client, Communication, withDetails } from '../core/db/models/index';
import { findNumberOptOut, matchOneClientSql } from '../crm';
import type { ChatEvents } from '../events';
import type { TMediaStore } from '../media';
import { ProviderError, renderTemplateBody } from '../provider';
import type { ProviderClient } from '../provider';
import { findTemplate } from '../templates';
import type { TConfig } from '../core/config';
import { AppError } from '../core/errors';
import { parsePhoneDigits, replyNumbersOf } from '../../shared/phone';
import { formatNumber, requireNumberInput } from '../core/phone-input';
import { UNKNOWN_OUTCOME_PREFIX } from '../../shared/provider-messages';
import { isDatabaseUnavailable } from '../core/db/database-errors';
import type { TLogger } from '../core/logger';
import { markOutcomeUnknown } from './interrupted-sends';
import { adoptKeptReceipts, recordProviderMessageId } from './receipts';

export type TSendDeps = {
  sequelize: Sequelize;
  events: Pick<ChatEvents, 'publishQuietly'>;
  /** null in demo mode: nothing leaves the server. */
  provider: ProviderClient | null;
  config: Pick<TConfig, 'defaultCountry'>;
  mediaStore: TMediaStore;
  logger?: Pick<TLogger, 'warn'>;
};

/** How often a send in flight renews its lease (the sweeper waits two minutes). */
const SEND_LEASE_TOUCH_MS = 30_000;
const ACCEPTED_ID_TRIES_IN_REQUEST = 3;
const ACCEPTED_ID_RETRY_MS = 1_000;
const ACCEPTED_ID_GIVE_UP_MS = 10 * 60_000;

/** Who a message goes to. `to` with `clientId`: one of the numbers that client's conversation may reply to. */
/** `userId`: the member of staff sending (recorded as the sender; null for the server itself). */
/** `test`: sent from Settings as a test (`metadata.test`), so a client's file shows it for what it is. */
/** `echoId`: the browser's id for this send (a queued send tried again finds its first record, README "Durable client"). */
export type TRecipientInput = {
  clientId?: number;
  caseId?: number;
  to?: string;
  retryOf?: number;
  userId?: number;
  test?: boolean;
  echoId?: string;
};
/** `attachmentId`: a file this user uploaded (`POST /api/media`) and has not sent; `body` is then its caption. */
export type TSendInput = TRecipientInput & { body?: string; attachmentId?: number };
export type TSendTemplateInput = TRecipientInput & { name: string; language: string; params: string[] };

/** `name`: the client's, for messages about them ("since Amelia Hart last wrote"). */
type TRecipient = { digits: string; clientId: number | null; caseId: number | null; name: string | null };

/** The numbers a reply from this client's conversation may go to, and the default (replyNumbersOf). */
export async function listReplyNumbers(
  sequelize: Sequelize,
  clientId: number,
): Promise<{ numbers: string[]; defaultNumber: string | null }> {
  const [row] = await sequelize.query<{ own: string[] | null; wrote: string[] | null }>(
    `SELECT
       (SELECT array_agg(n.digits ORDER BY n."primary" DESC, n.added_at, n.id) FROM client_numbers n WHERE n.client_id = $1) AS own,
       (SELECT array_agg(w.peer_phone ORDER BY w.last DESC) FROM (
          SELECT c.peer_phone, max(c.created_at) AS last FROM communications c
          WHERE c.client_id = $1 AND c.type = 'chat' AND c.direction = 'inbound' AND c.peer_phone IS NOT NULL
          GROUP BY c.peer_phone) w) AS wrote`,
    { bind: [clientId], type: QueryTypes.SELECT },
  );
  return replyNumbersOf(row?.own ?? [], row?.wrote ?? []);
}

/**
 * A number that asked to receive no more messages is sent none, whoever it belongs to (README
 * "Opt-outs"). Checked when the recipient is resolved, before anything is written, and again
 * immediately before the provider call (a STOP may land while a file uploads).
 */
async function assertNumberMayReceive(sequelize: Sequelize, recipient: Pick<TRecipient, 'digits' | 'name'>): Promise<void> {
  const optOut = await findNumberOptOut(sequelize, recipient.digits);
  if (!optOut) return;
  const who = recipient.name ?? formatNumber(recipient.digits);
  const number = recipient.name ? ` from ${formatNumber(recipient.digits)}` : '';
  throw new AppError(
    'PRECONDITION_FAILED',
    `${who} asked not to receive chat messages (opted out${number} ${optOut.at.toISOString().slice(0, 10)}): nothing was sent. Contact them another way; sends resume when they send START, or a director can clear the opt-out if they ask to resume.`,
  );
}

async function resolveRecipient(deps: TSendDeps, input: TRecipientInput): Promise<TRecipient> {
  if (input.clientId !== undefined) {
    const client = await Client.findByPk(input.clientId, { attributes: ['id', 'name'] });
    if (!client) throw new AppError('NOT_FOUND', 'Client not found.');
    const { numbers, defaultNumber } = await listReplyNumbers(deps.sequelize, client.id);
    let digits = defaultNumber;
    if (input.to !== undefined) {
      // A number as listed (stored digits) first, then as a person would type it.
      const listed = parsePhoneDigits(input.to);
      digits = listed && numbers.includes(listed) ? listed : requireNumberInput(input.to, deps.config.defaultCountry, 'to');
      if (!numbers.includes(digits)) {
        throw new AppError('INVALID_INPUT', `${formatNumber(digits)} is not one of ${client.name}'s numbers.`, {
          to: [`Choose one of ${client.name}'s numbers.`],
        });
      }
    }
    if (!digits) throw new AppError('INVALID_INPUT', `${client.name} has no number to send to; add one on the client first.`);
    await assertNumberMayReceive(deps.sequelize, { digits, name: client.name });
    let caseId: number | null = null;
    if (input.caseId !== undefined) {
      const found = await Case.findByPk(input.caseId);
      if (!found || found.clientId !== client.id)
        throw new AppError('INVALID_INPUT', 'That case does not belong to this client.', {
          caseId: ['Choose one of this client’s cases.'],
        });
      caseId = found.id;
    }
    return { digits, clientId: client.id, caseId, name: client.name };
  }
  const digits = requireNumberInput(input.to ?? '', deps.config.defaultCountry, 'to');
  // Same rule as inbound.
  const [match] = await deps.sequelize.query<{ id: number | null }>(`SELECT ${matchOneClientSql('$1::text')} AS id`, {
    bind: [digits],
    type: QueryTypes.SELECT,
  });
  const client = match?.id ? await Client.findByPk(match.id, { attributes: ['id', 'name'] }) : null;
  const recipient = { digits, clientId: client?.id ?? null, caseId: null, name: client?.name ?? null };
  await assertNumberMayReceive(deps.sequelize, recipient);
  return recipient;
}

/**
 * What goes out: the text the record keeps, what else it keeps, and the provider call that sends
 * it; `attach` runs in the transaction that writes the record (a file joins its message).
 */
type TOutgoing = {
  body: string;
  sentBy: number | null;
  metadata: TCommunication['metadata'];
  attach?: (recordId: number, transaction: Transaction) => Promise<void>;
  /** `checkpoint`: the last checks, to run again right before the message itself is sent (after an upload). */
  send: (provider: ProviderClient, to: string, checkpoint: () => Promise<void>) => Promise<{ id: string }>;
};

/**
 * Writes the record `pending`, then calls the provider (live) or not (demo), then records `sent`
 * with the provider id (applying any receipt that came early) — or `failed` with the actionable
 * error, which is also thrown so the caller sees it. Nothing typed is lost either way.
 * A call whose answer was lost leaves the record `pending` with an unknown outcome and returns it:
 * the message may have gone, so it is neither failed nor offered for a plain resend (README
 * "Unknown outcome").
 */
async function recordAndSend(deps: TSendDeps, recipient: TRecipient, outgoing: TOutgoing): Promise<TCommunication> {
  const creating = deps.sequelize.transaction(async (transaction) => {
    const created = await Communication.create(
      {
        type: 'chat',
        direction: 'outbound',
        status: 'pending',
        body: outgoing.body,
        clientId: recipient.clientId,
        caseId: recipient.caseId,
        peerPhone: recipient.digits,
        metadata: outgoing.metadata,
        sentBy: outgoing.sentBy,
      },
      { transaction },
    );
    // A retry claims its failed record first: a second one waits here, finds it taken and rolls
    // back before any file is copied.
    const retryOf = outgoing.metadata.retry_of;
    if (retryOf !== undefined) await claimRetry(deps.sequelize, retryOf, created.id, transaction);
    await outgoing.attach?.(created.id, transaction);
    return created;
  });
  const record = await creating.catch(async (error: unknown) => {
    // The same queued send, tried twice at once: the other attempt's record is the answer.
    const echoId = outgoing.metadata.echo_id;
    const earlier = error instanceof UniqueConstraintError && echoId ? await findEchoedSend(outgoing.sentBy, echoId) : null;
    if (earlier) throw new EchoedSend(earlier);
    throw error;
  });
  deps.events.publishQuietly(outgoing.metadata.retry_of !== undefined ? [record.id, outgoing.metadata.retry_of] : [record.id]);

  const checkpoint = () => assertNumberMayReceive(deps.sequelize, recipient);
  let providerId: string;
  const lease = holdSendLease(deps.sequelize, record.id);
  try {
    await checkpoint();
    providerId = deps.provider ? (await outgoing.send(deps.provider, recipient.digits, checkpoint)).id : `demo-${randomUUID()}`;
  } catch (error) {
    if (error instanceof ProviderError && error.outcomeUnknown) return keepOutcomeUnknown(deps, record.id, error);
    const refusal = error instanceof AppError ? error : null;
    const message =
      refusal?.message ??
      (error instanceof ProviderError ? error.messageFor(recipient.name ?? 'this contact') : 'The message could not be sent.');
    await record.update({ status: 'failed', error: message });
    deps.events.publishQuietly([record.id]);
    throw refusal ?? new AppError('PROVIDER_ERROR', message);
  } finally {
    lease.release();
  }
  await writeAcceptedId(deps, record.id, providerId);
  deps.events.publishQuietly([record.id]);
  await record.reload();
  return (await withDetails([record]))[0]!.toDto();
}

/**
 * A send in flight touches its record every half minute, so the sweeper of abandoned sends (which
 * takes a `pending` record untouched for two minutes as having no live owner) leaves a long upload
 * to a slow provider alone.
 */
function holdSendLease(sequelize: Sequelize, recordId: number): { release: () => void } {
  const timer = setInterval(() => {
    sequelize
      .query(`UPDATE communications SET updated_at = now() WHERE id = $1 AND status = 'pending'`, { bind: [recordId] })
      .catch(() => undefined); // a missed touch only lets the sweeper mark it unknown, which is still true
  }, SEND_LEASE_TOUCH_MS);
  timer.unref();
  return { release: () => clearInterval(timer) };
}

/** The record stays `pending`, marked as of unknown outcome with why; returned, not thrown. */
async function keepOutcomeUnknown(deps: TSendDeps, recordId: number, error: ProviderError): Promise<TCommunication> {
  const reason =
    error.kind === 'timeout'
      ? 'it did not answer in time'
      : error.kind === 'network'
        ? 'the connection broke'
        : 'its answer had no message id';
  const marked = await markOutcomeUnknown(
    deps.sequelize,
    [recordId],
    `${UNKNOWN_OUTCOME_PREFIX} the messaging service may have sent this message (${reason}). It shows as sent if the provider reports it; check with them before sending it again.`,
  ).catch((dbError: unknown) => {
    if (isDatabaseUnavailable(dbError)) return [];
    throw dbError;
  });
  if (marked.length === 0) throw new AppError('SERVICE_UNAVAILABLE', MAY_HAVE_GONE);
  // Its receipts may have come before the answer was lost.
  await adoptKeptReceipts(deps.sequelize, marked).catch((dbError: unknown) =>
    deps.logger?.warn({ error: (dbError as Error).name }, 'kept receipts not matched'),
  );
  deps.events.publishQuietly([recordId]);
  const [stored] = await withDetails(await Communication.findAll({ where: { id: recordId } }));
  return stored!.toDto();
}

const MAY_HAVE_GONE =
  'The message may have been sent, but it could not be recorded: the database is not answering. Do not send it again; it will show in the thread when the database is back.';

/**
 * The provider accepted the message: its id must be stored, or its receipts would find nothing
 * and a Retry would send it twice. Tried a few times within the request; when the database stays
 * away, the caller is told it was accepted and the write goes on in the background (bounded — it
 * cannot wait in a PostgreSQL-backed queue while PostgreSQL is the thing missing). If it never
 * lands the record stays `pending`, the sweeper marks it unknown and the first receipt adopts it.
 */
async function writeAcceptedId(deps: TSendDeps, recordId: number, providerId: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await recordProviderMessageId(deps.sequelize, recordId, providerId);
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      if (attempt >= ACCEPTED_ID_TRIES_IN_REQUEST) break;
      await delay(ACCEPTED_ID_RETRY_MS);
    }
  }
  void keepWritingAcceptedId(deps, recordId, providerId);
  throw new AppError(
    'SERVICE_UNAVAILABLE',
    'The provider accepted the message, but the database is not answering, so it is not recorded yet. Do not send it again: it will show as sent when the database is back.',
  );
}

async function keepWritingAcceptedId(deps: TSendDeps, recordId: number, providerId: string): Promise<void> {
  for (let wait = ACCEPTED_ID_RETRY_MS, waited = 0; waited < ACCEPTED_ID_GIVE_UP_MS; waited += wait, wait = Math.min(wait * 2, 30_000)) {
    await delay(wait);
    try {
      await recordProviderMessageId(deps.sequelize, recordId, providerId);
      deps.events.publishQuietly([recordId]);
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) break;
    }
  }
  deps.logger?.warn({ recordId }, 'an accepted send could not be recorded; it is left to the sweeper and its receipts');
}

/** A send whose echo id was seen before: its first record stands in for it. */
class EchoedSend extends Error {
  constructor(readonly record: TCommunication) {
    super('echoed send');
  }
}

/** The record an earlier send with this echo id by this person made, if any. */
async function findEchoedSend(userId: number | null | undefined, echoId: string): Promise<TCommunication | null> {
  if (userId === null || userId === undefined) return null;
  const [found] = await Communication.findAll({
    where: { sentBy: userId, direction: 'outbound', type: 'chat', metadata: { echo_id: echoId } },
    limit: 1,
  });
  return found ? (await withDetails([found]))[0]!.toDto() : null;
}

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
    metadata: { ...(input.retryOf ? { retry_of: input.retryOf } : {}), ...(input.test ? { test: true } : {}), ...echo },
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
async function sendFileMessage(
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
    metadata: { kind, ...(input.retryOf ? { retry_of: input.retryOf } : {}), ...echo },
    attach: async (recordId, transaction) => {
      if (resend) {
        sentId = await copyUpload(deps.sequelize, file.id, recordId, input.userId, transaction);
        return;
      }
      const [claimed] = await deps.sequelize.query<{ id: number }>(
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
async function copyUpload(
  sequelize: Sequelize,
  attachmentId: number,
  recordId: number,
  userId: number | undefined,
  transaction: Transaction,
): Promise<number> {
  const [copy] = await sequelize.query<{ id: number }>(
    `INSERT INTO attachments (communication_id, kind, mime_type, file_name, size, sha256, state, uploaded_by)
     SELECT $3, kind, mime_type, file_name, size, sha256, 'stored', coalesce($2, uploaded_by) FROM attachments WHERE id = $1 AND state = 'stored'
     RETURNING id`,
    { bind: [attachmentId, userId ?? null, recordId], type: QueryTypes.SELECT, transaction },
  );
  if (!copy) throw new AppError('CONFLICT', 'The file of that message is no longer stored: upload it again.');
  await sequelize.query(
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
  const template = await findTemplate(deps.sequelize, input.name, input.language);
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
      ...echo,
    },
    send: (provider, to) => provider.sendTemplate(to, { name: template.name, language: template.language, params }),
  });
}

const ALREADY_RESENT = 'This message has already been resent: see the newer copy below it.';

/**
 * A failed record is resent once: the new attempt's id is written on it (`resent_as`) in the
 * transaction that writes the attempt, only while it is still failed and not resent. A second
 * Retry — a double click, another browser — finds it taken and changes nothing.
 */
async function claimRetry(sequelize: Sequelize, failedId: number, attemptId: number, transaction: Transaction): Promise<void> {
  const [claimed] = await sequelize.query<{ id: number }>(
    `UPDATE communications SET metadata = metadata || jsonb_build_object('resent_as', $2::int), updated_at = now()
     WHERE id = $1 AND NOT metadata ? 'resent_as'
       AND (status = 'failed' OR (status = 'pending' AND metadata->>'outcome' = 'unknown'))
     RETURNING id`,
    { bind: [failedId, attemptId], type: QueryTypes.SELECT, transaction },
  );
  if (!claimed) throw new AppError('CONFLICT', ALREADY_RESENT);
}

export const MAY_HAVE_REACHED_THEM =
  'It may have reached them already: the provider’s answer to this message was lost. Check with them, then confirm to send it again.';

/**
 * Resends a failed record (text, template or file) as a new attempt, once; the failed one stays in
 * the thread. A record of unknown outcome may already have gone: resending it needs `confirm`.
 */
export async function retryChatMessage(deps: TSendDeps, id: number, userId?: number, confirm = false): Promise<TCommunication> {
  const failed = await Communication.findByPk(id);
  if (!failed || failed.type !== 'chat' || failed.direction !== 'outbound') throw new AppError('NOT_FOUND', 'Message not found.');
  const unknownOutcome = failed.status === 'pending' && failed.metadata.outcome === 'unknown';
  if (failed.status !== 'failed' && !unknownOutcome) throw new AppError('CONFLICT', 'Only a failed message can be retried.');
  if (failed.metadata.resent_as !== undefined) throw new AppError('CONFLICT', ALREADY_RESENT);
  if (unknownOutcome && !confirm) throw new AppError('CONFLICT', MAY_HAVE_REACHED_THEM);
  if (!failed.peerPhone) throw new AppError('INVALID_INPUT', 'This message has no recipient number.');
  // The same number as the failed attempt, on the same file.
  const recipient: TRecipientInput = {
    ...(failed.clientId !== null ? { clientId: failed.clientId } : {}),
    to: failed.peerPhone,
    ...(failed.caseId !== null && failed.clientId !== null ? { caseId: failed.caseId } : {}),
    retryOf: failed.id,
    userId,
    test: failed.metadata.test,
  };
  const template = failed.metadata.template;
  if (template) return sendTemplateMessage(deps, { ...recipient, ...template });
  const [file] = await Attachment.findAll({ where: { communicationId: failed.id }, attributes: ['id'], order: [['id', 'ASC']], limit: 1 });
  if (file) return sendFileMessage(deps, recipient, file.id, failed.body, true);
  return sendChatMessage(deps, { ...recipient, body: failed.body });
}
