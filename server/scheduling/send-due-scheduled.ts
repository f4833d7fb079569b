import { QueryTypes, type Transaction } from 'sequelize';
import { deactivatedNumber } from '../numbers';
import { sendChatMessage, sendTemplateMessage } from '../messaging';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { formatNumber } from '../core/phone-input';
import type { TLogger } from '../core/logger';
import type { TReader } from '../core/visibility';
import type { TDueSend } from './lease-due-sends';
import { markNotSent, type TRefusal } from './mark-not-sent';
import { windowClosedReason } from './reply-window';
import { CLIENT_REPLIED } from './unless-replied';

/** What the send path needs (messaging's TSendDeps), and a logger. */
export type TSchedulingDeps = Parameters<typeof sendChatMessage>[0] & { logger: Pick<TLogger, 'warn' | 'info'> };

/** Leases a row may take before it is given up: a send that keeps failing on its way out (not a refusal). */
export const MAX_ATTEMPTS = 5;
/** How soon a send that failed on its way out is tried again (with the database away, the whole lease runs out first). */
const RETRY_AFTER = "interval '10 seconds'";

/** The path a scheduled send's author is named by when the walls are asked for them (an `access.denied` row). */
const SCHEDULED_PATH = 'chat.schedule';

const NO_LONGER_PERMITTED = 'Not sent: whoever scheduled it may no longer send to this conversation.';
const FILE_GONE = 'The file was deleted before its time.';

/**
 * Why a leased row will not go, from what its lease read (the author, the walls, a reply that
 * stops it, the window, the file), or null when it should be sent. The send path checks the rest (the number, an opt-out, the
 * template) and its refusals are turned into reasons the same way.
 */
export function refusalOf(row: TDueSend): TRefusal | null {
  const refuse = (reason: string, tell = row.authorId !== null) => ({ id: row.id, reason, tell });
  if (row.attempts > MAX_ATTEMPTS)
    return refuse(`It could not be sent after ${MAX_ATTEMPTS} tries (the server or the provider kept failing): send it yourself.`);
  if (row.kind === 'auto_reply') return null;
  if (row.authorGone)
    return refuse(
      `Not sent: ${row.authorName ?? 'its author'}’s account was deactivated before its time. Send it yourself if it should still go.`,
      false,
    );
  if (!row.permitted) return refuse(NO_LONGER_PERMITTED);
  // Before the window: a reply reopens it, and is exactly what stops this one.
  if (row.clientReplied) return refuse(CLIENT_REPLIED);
  const needsFile = row.kind === 'file' || (row.kind === 'template' && row.template?.header !== undefined);
  if (needsFile && row.attachmentId === null) return refuse(FILE_GONE);
  if (!row.numberTheirs)
    return refuse(`Not sent: ${formatNumber(row.toDigits)} is no longer one of ${row.clientName ?? 'the client'}'s numbers.`);
  // Before the window, which is that number's: nothing goes out through a deactivated number at all.
  if (row.firmNumberGone) return refuse(deactivatedNumber(row.firmNumberGone));
  if (!row.windowOpen) return refuse(windowClosedReason(row.clientName, row.toDigits, row.everWrote));
  return null;
}

/** The row was cancelled or taken by another worker before its record was written: nothing was sent. */
class ScheduledSendGone extends AppError {
  constructor() {
    super('CONFLICT', 'This scheduled message has already been sent or cancelled.');
  }
}

/**
 * Ends the wait in the transaction that writes the message's record (before any provider call):
 * the record and the end of the wait commit together or not at all. A crash before leaves the row
 * due (sent later, once); a crash after leaves a `pending` record, which the sweeper of abandoned
 * sends marks as of unknown outcome (never sent again by itself).
 */
async function endWait(id: number, recordId: number, transaction: Transaction): Promise<void> {
  const [ended] = await db().query(
    `UPDATE scheduled_sends SET state = 'sent', communication_id = $2, leased_until = NULL, updated_at = now()
     WHERE id = $1 AND state = 'scheduled' RETURNING id`,
    { bind: [id, recordId], type: QueryTypes.SELECT, transaction },
  );
  if (!ended) throw new ScheduledSendGone();
}

/** Through the send path, as its author would send it now (or as the firm, for an automatic reply). */
async function sendThroughSendPath(deps: TSchedulingDeps, row: TDueSend): Promise<void> {
  const inRecordTransaction = (recordId: number, transaction: Transaction) => endWait(row.id, recordId, transaction);
  if (row.kind === 'auto_reply') {
    // The firm's own reply: to the number that wrote, filed as inbound messages are; no user, no window.
    await sendChatMessage(deps, {
      to: row.toDigits,
      fromNumberId: row.firmNumberId,
      body: row.body ?? '',
      marks: { auto_reply: true },
      inRecordTransaction,
    });
    return;
  }
  const reader: TReader = { id: row.authorId!, role: row.authorRole!, ip: null, path: SCHEDULED_PATH };
  const recipient = {
    clientId: row.clientId!,
    to: row.toDigits,
    ...(row.caseId !== null ? { caseId: row.caseId } : {}),
    // The lease read the walls, the author and the number (refusalOf): the send path asks only the opt-out again.
    resolved: { digits: row.toDigits, clientId: row.clientId, caseId: row.caseId, name: row.clientName, firmNumberId: row.firmNumberId },
    userId: reader.id,
    reader,
    marks: { scheduled_send_id: row.id },
    inRecordTransaction,
  };
  if (row.kind === 'template') {
    const { name, language, params, header } = row.template!;
    // `header` (a template's media header) is passed through as chat.sendTemplate takes it.
    const input = { ...recipient, name, language, params, ...(header ? { header } : {}) };
    await sendTemplateMessage(deps, input);
    return;
  }
  await sendChatMessage(deps, {
    ...recipient,
    body: row.body ?? '',
    ...(row.kind === 'file' ? { attachmentId: row.attachmentId! } : {}),
  });
}

/** The send path refused it: the reason its author reads (a wall is not named). */
function reasonOfRefusal(error: AppError): string {
  // A wall answers as a missing client or case does (no field); a file not found names its field.
  if (error.code === 'NOT_FOUND' && !error.fieldErrors) return NO_LONGER_PERMITTED;
  return error.message;
}

/**
 * Sends one leased row. Its outcome stays on the row: `sent` with its record once the record is
 * written (a provider failure then shows on the record, failed with Retry, or of unknown outcome,
 * as for any send); `not_sent` with the reason when the send path refused it before writing one (an
 * opt-out, a number no longer the client's, a template no longer approved), its author told.
 * Anything else (the database away, a fault) leaves the row leased a little longer: it is tried
 * again shortly (or when its lease runs out), MAX_ATTEMPTS times in all.
 */
export async function sendDueSend(deps: TSchedulingDeps, row: TDueSend): Promise<void> {
  try {
    await sendThroughSendPath(deps, row);
  } catch (error) {
    if (error instanceof ScheduledSendGone) return;
    if (error instanceof AppError) {
      // A no-op when the record was written (the row is `sent` then): the record says what happened.
      await markNotSent([{ id: row.id, reason: reasonOfRefusal(error), tell: row.authorId !== null }]);
      return;
    }
    deps.logger.warn(
      {
        scheduledSendId: row.id,
        attempts: row.attempts,
        error: (error as Error).name,
        code: (error as { parent?: { code?: string } }).parent?.code,
      },
      'a scheduled send failed on its way out; it is tried again shortly',
    );
    await db()
      .query(`UPDATE scheduled_sends SET leased_until = now() + ${RETRY_AFTER} WHERE id = $1 AND state = 'scheduled'`, { bind: [row.id] })
      .catch(() => undefined); // the lease runs out by itself
  }
}
