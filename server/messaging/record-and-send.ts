import { randomUUID } from 'node:crypto';
import { QueryTypes, UniqueConstraintError, type Transaction } from 'sequelize';
import { setTimeout as delay } from 'node:timers/promises';
import type { TCommunication } from '../../shared/communication';
import { Communication, withDetails } from '../core/db/models/index';
import { ProviderError } from '../provider';
import type { ProviderClient } from '../provider';
import { AppError } from '../core/errors';
import { UNKNOWN_OUTCOME_PREFIX } from '../../shared/provider-messages';
import { isDatabaseUnavailable } from '../core/db/database-errors';
import { db } from '../core/db/db';
import { markOutcomeUnknown } from './interrupted-sends';
import { adoptKeptReceipts, PROVIDER_CALL_AT, recordProviderMessageId } from './receipts';
import type { TSendDeps } from './send-deps';
import { assertNumberMayReceive, type TRecipient } from './send-recipient';

/** How often a send in flight renews its lease (the sweeper waits two minutes). */
const SEND_LEASE_TOUCH_MS = 30_000;
const ACCEPTED_ID_TRIES_IN_REQUEST = 3;
const ACCEPTED_ID_RETRY_MS = 1_000;
const ACCEPTED_ID_GIVE_UP_MS = 10 * 60_000;

/**
 * What goes out: the text the record keeps, what else it keeps, and the provider call that sends
 * it; `attach` runs in the transaction that writes the record (a file joins its message).
 */
export type TOutgoing = {
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
 * the message may have gone, so it is neither failed nor offered for a plain resend (server/messaging/README.md
 * "Sending messages", Unknown outcome).
 */
export async function recordAndSend(deps: TSendDeps, recipient: TRecipient, outgoing: TOutgoing): Promise<TCommunication> {
  const creating = db().transaction(async (transaction) => {
    const created = await Communication.create(
      {
        type: 'chat',
        direction: 'outbound',
        status: 'pending',
        body: outgoing.body,
        clientId: recipient.clientId,
        caseId: recipient.caseId,
        peerPhone: recipient.digits,
        firmNumberId: recipient.firmNumberId,
        metadata: outgoing.metadata,
        sentBy: outgoing.sentBy,
      },
      { transaction },
    );
    // A retry claims its failed record first: a second one waits here, finds it taken and rolls
    // back before any file is copied.
    const retryOf = outgoing.metadata.retry_of;
    if (retryOf !== undefined) await claimRetry(retryOf, created.id, transaction);
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

  // Each firm number sends with its own key (server/numbers/README.md "Several numbers").
  const provider = deps.providerFor ? await deps.providerFor(recipient.firmNumberId) : deps.provider;
  const checkpoint = async () => {
    await assertNumberMayReceive(recipient);
    if (provider) await markProviderCallBegins(record.id);
  };
  let providerId: string;
  const lease = holdSendLease(record.id);
  try {
    await checkpoint();
    providerId = provider ? (await outgoing.send(provider, recipient.digits, checkpoint)).id : `demo-${randomUUID()}`;
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
function holdSendLease(recordId: number): { release: () => void } {
  const timer = setInterval(() => {
    db()
      .query(`UPDATE communications SET updated_at = now() WHERE id = $1 AND status = 'pending'`, { bind: [recordId] })
      .catch(() => undefined); // a missed touch only lets the sweeper mark it unknown, which is still true
  }, SEND_LEASE_TOUCH_MS);
  timer.unref();
  return { release: () => clearInterval(timer) };
}

/**
 * Notes on the record, by the database's clock, that the call sending the message begins now (a
 * file's is noted again after its upload, right before the message itself): a receipt that reached
 * this server before then is not this send's (`adoptUnknownOutcomeSends`, receipts.ts). Also renews
 * the send's lease.
 */
async function markProviderCallBegins(recordId: number): Promise<void> {
  await db().query(
    `UPDATE communications SET metadata = metadata || jsonb_build_object('${PROVIDER_CALL_AT}', now()), updated_at = now()
     WHERE id = $1 AND status = 'pending'`,
    { bind: [recordId] },
  );
}

/** Why the answer is taken as lost, in the words the record's error uses. */
function lostBecause(error: ProviderError): string {
  if (error.kind === 'timeout') return 'it did not answer in time';
  if (error.kind === 'network') return 'the connection broke';
  if (error.status !== null && error.status >= 500)
    return `it answered HTTP ${error.status}, a server error that can follow a send it took`;
  return 'its answer had no message id';
}

/** The record stays `pending`, marked as of unknown outcome with why; returned, not thrown. */
async function keepOutcomeUnknown(deps: TSendDeps, recordId: number, error: ProviderError): Promise<TCommunication> {
  const reason = lostBecause(error);
  const marked = await markOutcomeUnknown(
    [recordId],
    `${UNKNOWN_OUTCOME_PREFIX} the messaging service may have sent this message (${reason}). It shows as sent if the provider reports it; check with them before sending it again.`,
  ).catch((dbError: unknown) => {
    if (isDatabaseUnavailable(dbError)) return [];
    throw dbError;
  });
  if (marked.length === 0) throw new AppError('SERVICE_UNAVAILABLE', MAY_HAVE_GONE);
  // Its receipts may have come before the answer was lost.
  await adoptKeptReceipts(marked).catch((dbError: unknown) =>
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
      await recordProviderMessageId(recordId, providerId);
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
      await recordProviderMessageId(recordId, providerId);
      deps.events.publishQuietly([recordId]);
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) break;
    }
  }
  deps.logger?.warn({ recordId }, 'an accepted send could not be recorded; it is left to the sweeper and its receipts');
}

/** A send whose echo id was seen before: its first record stands in for it. */
export class EchoedSend extends Error {
  constructor(readonly record: TCommunication) {
    super('echoed send');
  }
}

/** The record an earlier send with this echo id by this person made, if any. */
export async function findEchoedSend(userId: number | null | undefined, echoId: string): Promise<TCommunication | null> {
  if (userId === null || userId === undefined) return null;
  const [found] = await Communication.findAll({
    where: { sentBy: userId, direction: 'outbound', type: 'chat', metadata: { echo_id: echoId } },
    limit: 1,
  });
  return found ? (await withDetails([found]))[0]!.toDto() : null;
}

export const ALREADY_RESENT = 'This message has already been resent: see the newer copy below it.';

/**
 * A failed record is resent once: the new attempt's id is written on it (`resent_as`) in the
 * transaction that writes the attempt, only while it is still failed and not resent. A second
 * Retry — a double click, another browser — finds it taken and changes nothing.
 */
async function claimRetry(failedId: number, attemptId: number, transaction: Transaction): Promise<void> {
  const [claimed] = await db().query<{ id: number }>(
    `UPDATE communications SET metadata = metadata || jsonb_build_object('resent_as', $2::int), updated_at = now()
     WHERE id = $1 AND NOT metadata ? 'resent_as'
       AND (status = 'failed' OR (status = 'pending' AND metadata->>'outcome' = 'unknown'))
     RETURNING id`,
    { bind: [failedId, attemptId], type: QueryTypes.SELECT, transaction },
  );
  if (!claimed) throw new AppError('CONFLICT', ALREADY_RESENT);
}
