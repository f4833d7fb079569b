import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { TCommunication } from '../../shared/communication';
import { parsePhoneDigits } from '../../shared/phone';
import { Case, Client, Communication } from '../db/models';
import { AppError } from '../errors';
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
};

export type TSendInput = { body: string; clientId?: number; caseId?: number; to?: string; retryOf?: number };

const INVALID_NUMBER = 'Enter the number in international format, 8 to 15 digits (for example +44 7700 900123).';

async function resolveRecipient(sequelize: Sequelize, input: TSendInput): Promise<{ digits: string; clientId: number | null; caseId: number | null }> {
  if (input.clientId !== undefined) {
    const client = await Client.findByPk(input.clientId);
    if (!client) throw new AppError('NOT_FOUND', 'Client not found.');
    const digits = parsePhoneDigits(client.phone);
    if (!digits) throw new AppError('INVALID_INPUT', `${client.name}'s number is not a valid mobile number; correct it on the client first.`);
    let caseId: number | null = null;
    if (input.caseId !== undefined) {
      const found = await Case.findByPk(input.caseId);
      if (!found || found.clientId !== client.id) throw new AppError('INVALID_INPUT', 'That case does not belong to this client.', { caseId: ['Choose one of this client’s cases.'] });
      caseId = found.id;
    }
    return { digits, clientId: client.id, caseId };
  }
  const digits = parsePhoneDigits(input.to ?? '');
  if (!digits) throw new AppError('INVALID_INPUT', INVALID_NUMBER, { to: [INVALID_NUMBER] });
  // Same rule as inbound.
  const [match] = await sequelize.query<{ id: number | null }>(
    `SELECT ${matchOneClientSql('$1::text')} AS id`,
    { bind: [digits], type: QueryTypes.SELECT },
  );
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
  const recipient = await resolveRecipient(deps.sequelize, input);
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
    ...(failed.clientId !== null ? { clientId: failed.clientId } : { to: failed.peerPhone }),
    ...(failed.caseId !== null && failed.clientId !== null ? { caseId: failed.caseId } : {}),
    retryOf: failed.id,
  });
}
