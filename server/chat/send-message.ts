import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { TCommunication } from '../../shared/communication';
import { Case, Client, Communication } from '../db/models';
import type { TConfig } from '../config';
import { AppError } from '../errors';
import { parsePhoneDigits, replyNumbersOf } from '../../shared/phone';
import { formatNumber, requireNumberInput } from '../services/phone-input';
import type { ChatEvents } from '../events/chat-events';
import type { ProviderClient } from '../provider/provider-client';
import { ProviderError } from '../provider/provider-errors';
import { matchOneClientSql } from './client-match';
import { recordProviderMessageId } from './receipts';

export type TSendDeps = {
  sequelize: Sequelize;
  events: Pick<ChatEvents, 'publishQuietly'>;
  /** null in demo mode: nothing leaves the server. */
  provider: ProviderClient | null;
  config: Pick<TConfig, 'defaultCountry'>;
};

/** `to` with `clientId`: one of the numbers that client's conversation is with (else the default below). */
export type TSendInput = { body: string; clientId?: number; caseId?: number; to?: string; retryOf?: number };

type TRecipient = { digits: string; clientId: number | null; caseId: number | null };

/** The numbers a reply from this client's conversation may go to, and the default (replyNumbersOf). */
export async function listReplyNumbers(sequelize: Sequelize, clientId: number): Promise<{ numbers: string[]; defaultNumber: string | null }> {
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

async function resolveRecipient(deps: TSendDeps, input: TSendInput): Promise<TRecipient> {
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
        throw new AppError('INVALID_INPUT', `${formatNumber(digits)} is not one of ${client.name}'s numbers.`, { to: [`Choose one of ${client.name}'s numbers.`] });
      }
    }
    if (!digits) throw new AppError('INVALID_INPUT', `${client.name} has no number to send to; add one on the client first.`);
    let caseId: number | null = null;
    if (input.caseId !== undefined) {
      const found = await Case.findByPk(input.caseId);
      if (!found || found.clientId !== client.id) throw new AppError('INVALID_INPUT', 'That case does not belong to this client.', { caseId: ['Choose one of this client’s cases.'] });
      caseId = found.id;
    }
    return { digits, clientId: client.id, caseId };
  }
  const digits = requireNumberInput(input.to ?? '', deps.config.defaultCountry, 'to');
  // Same rule as inbound.
  const [match] = await deps.sequelize.query<{ id: number | null }>(`SELECT ${matchOneClientSql('$1::text')} AS id`, {
    bind: [digits],
    type: QueryTypes.SELECT,
  });
  return { digits, clientId: match?.id ?? null, caseId: null };
}

/**
 * Writes the record `pending`, then calls the provider (live) or not (demo), then records `sent`
 * with the provider id (applying any receipt that came early) — or `failed` with the actionable
 * error, which is also thrown so the caller sees it. Nothing typed is lost either way.
 */
export async function sendChatMessage(deps: TSendDeps, input: TSendInput): Promise<TCommunication> {
  const body = input.body.trim();
  if (!body) throw new AppError('INVALID_INPUT', 'Type a message first.', { body: ['Type a message first.'] });
  const recipient = await resolveRecipient(deps, input);
  const record = await Communication.create({
    type: 'chat',
    direction: 'outbound',
    status: 'pending',
    body,
    clientId: recipient.clientId,
    caseId: recipient.caseId,
    peerPhone: recipient.digits,
    metadata: input.retryOf ? { retry_of: input.retryOf } : {},
  });
  deps.events.publishQuietly([record.id]);

  let providerId: string;
  try {
    providerId = deps.provider ? (await deps.provider.sendText(recipient.digits, body)).id : `demo-${randomUUID()}`;
  } catch (error) {
    const message = error instanceof ProviderError ? error.message : 'The message could not be sent.';
    await record.update({ status: 'failed', error: message });
    deps.events.publishQuietly([record.id]);
    throw new AppError('PROVIDER_ERROR', message);
  }
  await recordProviderMessageId(deps.sequelize, record.id, providerId);
  deps.events.publishQuietly([record.id]);
  await record.reload();
  return record.toDto();
}

/** Resends a failed record's text as a new attempt; the failed one stays in the thread. */
export async function retryChatMessage(deps: TSendDeps, id: number): Promise<TCommunication> {
  const failed = await Communication.findByPk(id);
  if (!failed || failed.type !== 'chat' || failed.direction !== 'outbound') throw new AppError('NOT_FOUND', 'Message not found.');
  if (failed.status !== 'failed') throw new AppError('CONFLICT', 'Only a failed message can be retried.');
  if (!failed.peerPhone) throw new AppError('INVALID_INPUT', 'This message has no recipient number.');
  return sendChatMessage(deps, {
    body: failed.body,
    // The same number as the failed attempt, on the same file.
    ...(failed.clientId !== null ? { clientId: failed.clientId } : {}),
    to: failed.peerPhone,
    ...(failed.caseId !== null && failed.clientId !== null ? { caseId: failed.caseId } : {}),
    retryOf: failed.id,
  });
}
