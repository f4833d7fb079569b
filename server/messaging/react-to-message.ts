import { randomUUID } from 'node:crypto';
import { isOneEmoji, type TCommunication } from '../../shared/communication';
import { parsePhoneDigits } from '../../shared/phone';
import { Client, Communication, withDetails } from '../core/db/models/index';
import { db } from '../core/db/db';
import { queryRows, raw, sql, sqlInteger, type Sql } from '../core/sql';
import { AppError } from '../core/errors';
import type { TConfig } from '../core/config';
import type { TReader } from '../core/visibility';
import { assertRecordVisible } from '../access';
import { announcedCte } from '../events';
import { ProviderError } from '../provider';
import { MAX_KEPT_REACTIONS } from './message-updates';
import { FIRM_REACTION_CALLS } from './receipts';
import type { TSendDeps } from './send-deps';
import { assertNumberMayReceive } from './send-recipient';

// The firm reacting to a client's message (server/messaging/README.md "Reactions"): the provider's reaction message,
// then the reaction on the record like a client's, from the firm's number, with who chose it. One
// reaction from the firm per message: a new one replaces it, an empty one takes it away.

/** The provider takes reactions only to messages of the last 30 days. */
export const REACTION_MAX_AGE_DAYS = 30;
const REACTION_MAX_AGE_MS = REACTION_MAX_AGE_DAYS * 24 * 60 * 60 * 1000;
/** The provider's code for a reaction it will not take (too old, deleted, or not in that chat). */
const REACTION_REFUSED_CODE = 131009;

export const REACTION_TOO_OLD =
  'The provider only takes reactions to messages from the last 30 days: this message is older, so it cannot be reacted to. Reply to it instead.';
export const REACTION_REFUSED =
  'The provider only takes reactions to messages from the last 30 days that it still holds, and refused this one (it may be older, or deleted on their phone). Reply to it instead.';
const REACTION_UNKNOWN =
  'The messaging service did not answer, so the reaction may or may not show on their phone: react again to be sure (the same reaction twice changes nothing).';

export type TReactDeps = Pick<TSendDeps, 'provider' | 'providerFor'> & { config: Pick<TConfig, 'firmPhone'> };
/** `emoji`: exactly one emoji, or empty to take the firm's reaction away. */
export type TReactInput = { communicationId: number; emoji: string; reader?: TReader; userId?: number };

/**
 * The provider ids of the firm's latest reaction messages kept on the message they react to: the
 * provider's receipts for them name ids no record has, and must not be taken for a lost send's
 * (receipts.ts adopts such an id only when it is not one of these).
 */
const KEPT_REACTION_SEND_IDS = 5;

/** Reaction calls noted on one message at most (a call lost or in flight blocks adoption for 10 minutes; a day is ample). */
const KEPT_REACTION_CALLS = 20;

/**
 * Notes on the message, by the database's clock, that a reaction call to its number begins now:
 * until it is answered with an id or refused, a receipt for an id no record has could be this
 * reaction's, and no send of unknown outcome may take it (receipts.ts). Kept when the answer is
 * lost. Returns the note's key.
 */
async function noteReactionCall(recordId: number): Promise<string> {
  const key = randomUUID();
  await db().query(
    `UPDATE communications SET metadata = metadata || jsonb_build_object('${FIRM_REACTION_CALLS}', (
       SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(
         coalesce(metadata->'${FIRM_REACTION_CALLS}', '[]'::jsonb) || jsonb_build_array(jsonb_build_object('key', $2::text, 'at', now()))
       ) WITH ORDINALITY AS x(e, i)
       WHERE (e->>'at')::timestamptz > now() - interval '1 day'
         AND i > jsonb_array_length(coalesce(metadata->'${FIRM_REACTION_CALLS}', '[]'::jsonb)) + 1 - ${KEPT_REACTION_CALLS}))
     WHERE id = $1`,
    { bind: [recordId, key] },
  );
  return key;
}

/** The provider refused the reaction: nothing went, so the note of its call is dropped. */
async function dropReactionCall(recordId: number, key: string): Promise<void> {
  await db().query(
    `UPDATE communications SET metadata = metadata || jsonb_build_object('${FIRM_REACTION_CALLS}', (
       SELECT coalesce(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(metadata->'${FIRM_REACTION_CALLS}') e WHERE e->>'key' <> $2))
     WHERE id = $1 AND metadata ? '${FIRM_REACTION_CALLS}'`,
    { bind: [recordId, key] },
  );
}

/** The firm's reaction to one record: who reacted (the firm's digits), when, by whom, and the provider's ids for it. */
type TFirmReaction = {
  recordId: number;
  firm: string;
  emoji: string;
  at: string;
  userId: number | null;
  sentId: string | null;
  callKey: string | null;
};

/** Replaces the firm's reaction (an empty emoji removes it), keeping the newest MAX_KEPT_REACTIONS, and announces the record. */
const firmReactionSql = (r: TFirmReaction): Sql => sql`
WITH changed AS (
  UPDATE communications c
  SET metadata = jsonb_set(c.metadata, '{reactions}', (
        SELECT coalesce(jsonb_agg(e ORDER BY i), '[]'::jsonb)
        FROM jsonb_array_elements(t.reactions) WITH ORDINALITY AS x(e, i)
        WHERE i > jsonb_array_length(t.reactions) - ${sqlInteger(MAX_KEPT_REACTIONS)}))
      || CASE WHEN ${r.callKey}::text IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('${raw(FIRM_REACTION_CALLS)}', (
        SELECT coalesce(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(coalesce(c.metadata->'${raw(FIRM_REACTION_CALLS)}', '[]'::jsonb)) e
        WHERE e->>'key' IS DISTINCT FROM ${r.callKey}::text)) END
      || CASE WHEN ${r.sentId}::text IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('firm_reaction_ids', (
        SELECT jsonb_agg(e ORDER BY i)
        FROM jsonb_array_elements(coalesce(c.metadata->'firm_reaction_ids', '[]'::jsonb) || jsonb_build_array(${r.sentId}::text)) WITH ORDINALITY AS y(e, i)
        WHERE i > jsonb_array_length(coalesce(c.metadata->'firm_reaction_ids', '[]'::jsonb)) + 1 - ${sqlInteger(KEPT_REACTION_SEND_IDS)})) END,
      updated_at = now()
  FROM (
    SELECT o.id,
      coalesce((SELECT jsonb_agg(r) FROM jsonb_array_elements(o.metadata->'reactions') r WHERE r->>'from' <> ${r.firm}), '[]'::jsonb)
      || CASE WHEN ${r.emoji}::text = '' THEN '[]'::jsonb
         ELSE jsonb_build_array(jsonb_strip_nulls(jsonb_build_object('from', ${r.firm}::text, 'emoji', ${r.emoji}::text, 'at', ${r.at}::timestamptz, 'by', ${r.userId}::int))) END
      AS reactions
    FROM communications o WHERE o.id = ${r.recordId}
    FOR UPDATE
  ) t
  WHERE c.id = t.id
  RETURNING c.id
), ${announcedCte(sql`changed`)}
SELECT id, (SELECT count(*) FROM announced) AS notified FROM changed`;

/**
 * Reacts to a client's message. Refused before any provider call: a record the reader may not see
 * (NOT_FOUND, as if missing), the firm's own message or a note, one without a provider id or
 * deleted by the client, one older than 30 days (checked here from the client's own time, so the
 * provider is not asked what it is known to refuse), a number that opted out, and anything but
 * one emoji. The reaction is stored only once the provider took it (demo mode: at once).
 */
export async function reactToMessage(deps: TReactDeps, input: TReactInput, now = new Date()): Promise<TCommunication> {
  const emoji = input.emoji;
  if (emoji !== '' && !isOneEmoji(emoji))
    throw new AppError('INVALID_INPUT', 'React with exactly one emoji.', { emoji: ['Choose one emoji.'] });
  if (input.reader) await assertRecordVisible(input.reader, input.communicationId);
  const record = await Communication.findByPk(input.communicationId);
  if (!record) throw new AppError('NOT_FOUND', 'Message not found.');
  if (record.type !== 'chat' || record.direction !== 'inbound')
    throw new AppError(
      'INVALID_INPUT',
      record.type === 'chat' && record.direction === 'outbound'
        ? 'Only a client’s message can be reacted to, not one the firm sent.'
        : 'Only a client’s chat message can be reacted to: notes stay within the firm.',
    );
  const messageId = record.metadata.chat_msg_id;
  if (!messageId || !record.peerPhone)
    throw new AppError('INVALID_INPUT', 'This message has no id at the provider, so it cannot be reacted to.');
  if (record.metadata.revoked_at) throw new AppError('INVALID_INPUT', 'The client deleted this message, so it cannot be reacted to.');
  const sentAt = record.providerTimestamp ?? record.createdAt;
  if (now.getTime() - sentAt.getTime() > REACTION_MAX_AGE_MS) throw new AppError('PRECONDITION_FAILED', REACTION_TOO_OLD);

  const firm = firmDigits(deps.config.firmPhone);
  const current = (record.metadata.reactions ?? []).find((r) => r.from === firm)?.emoji ?? '';
  if (current === emoji) return dtoOf(record.id); // nothing to change: the provider is not asked again

  const client = record.clientId !== null ? await Client.findByPk(record.clientId, { attributes: ['name'] }) : null;
  await assertNumberMayReceive({ digits: record.peerPhone, name: client?.name ?? null });
  let sentId: string | null = null;
  let callKey: string | null = null;
  // The number the message came to reacts: the provider knows it under that number's key.
  const provider = deps.providerFor ? await deps.providerFor(record.firmNumberId) : deps.provider;
  if (provider) {
    const key = await noteReactionCall(record.id);
    callKey = key;
    ({ id: sentId } = await provider.sendReaction(record.peerPhone, { messageId, emoji }).catch(async (error: unknown) => {
      if (!(error instanceof ProviderError)) throw error;
      if (error.outcomeUnknown) throw new AppError('PROVIDER_ERROR', REACTION_UNKNOWN);
      await dropReactionCall(record.id, key);
      if (error.code === REACTION_REFUSED_CODE) throw new AppError('PRECONDITION_FAILED', REACTION_REFUSED);
      throw new AppError('PROVIDER_ERROR', error.messageFor(client?.name ?? 'this contact'));
    }));
  }
  await queryRows(
    firmReactionSql({ recordId: record.id, firm, emoji, at: now.toISOString(), userId: input.userId ?? null, sentId, callKey }),
  );
  return dtoOf(record.id);
}

/** The firm's number as the provider names it (digits), the `from` of the firm's reactions and of its phone's echoes. */
function firmDigits(firmPhone: string): string {
  const digits = parsePhoneDigits(firmPhone);
  if (!digits)
    throw new AppError('PRECONDITION_FAILED', 'FIRM_PHONE is not a number the provider can use: set it in international format.');
  return digits;
}

async function dtoOf(id: number): Promise<TCommunication> {
  const [stored] = await withDetails(await Communication.findAll({ where: { id } }));
  if (!stored) throw new AppError('NOT_FOUND', 'Message not found.');
  return stored.toDto();
}
