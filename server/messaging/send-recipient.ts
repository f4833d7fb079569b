import { QueryTypes, type Transaction } from 'sequelize';
import { Case, Client } from '../core/db/models/index';
import { assertClientWritable, matchOneClient } from '../crm';
import { findNumberOptOut } from '../opt-outs';
import { AppError } from '../core/errors';
import { parsePhoneDigits, replyNumbersOf } from '../../shared/phone';
import { formatNumber, requireNumberInput } from '../core/phone-input';
import { db } from '../core/db/db';
import { queryRows, sql } from '../core/sql';
import { assertSubjectVisible } from '../access';
import { assertSendingNumber, CONFIGURED_NUMBER_ID } from '../numbers';
import type { TReader } from '../core/visibility';
import type { TSendDeps } from './send-deps';

/** Who a message goes to. `to` with `clientId`: one of the numbers that client's conversation may reply to. */
/** `userId`: the member of staff sending (recorded as the sender; null for the server itself). */
/** `test`: sent from Settings as a test (`metadata.test`), so a client's file shows it for what it is. */
/** `echoId`: the browser's id for this send (a queued send tried again finds its first record, client/README.md "Durable client"). */
/** `reader`: the person sending, who may send only to a client and case they may see (server/access/README.md "Ethical walls"); absent for the server's own sends. */
export type TRecipientInput = {
  reader?: TReader;
  clientId?: number;
  caseId?: number;
  to?: string;
  retryOf?: number;
  userId?: number;
  test?: boolean;
  echoId?: string;
  /** The firm's number to send from; absent: the one this number last wrote to (sendingNumberFor). */
  fromNumberId?: number;
  /** Kept on the record: an automatic out-of-hours reply, or the scheduled send that made it. */
  marks?: { auto_reply?: true; scheduled_send_id?: number };
  /**
   * Runs in the transaction that writes the record, before any provider call: a scheduled send
   * stops being due there, so the record and the end of its wait commit together or not at all.
   */
  inRecordTransaction?: (recordId: number, transaction: Transaction) => Promise<void>;
  /**
   * Who it goes to, already decided and checked by the caller (the client, the case, that the
   * number is theirs, the walls): a scheduled send's worker reads all of it in the statement that
   * leases the row. Only the opt-out is asked again here (and once more before the provider call).
   */
  resolved?: TRecipient;
};
/** `attachmentId`: a file this user uploaded (`POST /api/media`) and has not sent; `body` is then its caption. */
export type TSendInput = TRecipientInput & { body?: string; attachmentId?: number };
/**
 * `header`: the file a template with a document, image or video header is sent with — an upload of
 * the sender's not sent yet (`{attachmentId}`), or on a retry the failed record's own header
 * (`{kind}`, as `metadata.template` keeps it), whose file is sent again as a copy.
 */
export type TSendTemplateInput = TRecipientInput & {
  name: string;
  language: string;
  params: string[];
  header?: { attachmentId: number } | { kind: 'document' | 'image' | 'video' };
};

/** `name`: the client's, for messages about them ("since Amelia Hart last wrote"). */
/** `firmNumberId`: the firm's number it goes from (server/numbers/README.md "Several numbers"). */
export type TRecipient = { digits: string; clientId: number | null; caseId: number | null; name: string | null; firmNumberId: number };

/**
 * The firm's number a message to `digits` goes from: the one chosen (active, the firm's), else the
 * active number this client number last wrote to, else the configured number.
 */
export async function sendingNumberFor(digits: string, chosen: number | undefined): Promise<number> {
  if (chosen !== undefined) {
    await assertSendingNumber(chosen);
    return chosen;
  }
  const [row] = await queryRows<{ id: number }>(
    sql`SELECT coalesce((SELECT c.firm_number_id FROM communications c JOIN firm_numbers n ON n.id = c.firm_number_id AND n.active
        WHERE c.peer_phone = ${digits} AND c.type = 'chat' AND c.direction = 'inbound' AND c.status IS DISTINCT FROM 'imported' ORDER BY c.created_at DESC LIMIT 1), ${CONFIGURED_NUMBER_ID}) AS id`,
  );
  return row!.id;
}

/** The numbers a reply from this client's conversation may go to, and the default (replyNumbersOf). */
export async function listReplyNumbers(clientId: number): Promise<{ numbers: string[]; defaultNumber: string | null }> {
  const [row] = await db().query<{ own: string[] | null; wrote: string[] | null }>(
    `SELECT
       (SELECT array_agg(n.digits ORDER BY n."primary" DESC, n.added_at, n.id) FROM client_numbers n WHERE n.client_id = $1) AS own,
       (SELECT array_agg(w.peer_phone ORDER BY w.last DESC) FROM (
          SELECT c.peer_phone, max(c.created_at) AS last FROM communications c
          WHERE c.client_id = $1 AND c.type = 'chat' AND c.direction = 'inbound' AND c.status IS DISTINCT FROM 'imported' AND c.peer_phone IS NOT NULL
          GROUP BY c.peer_phone) w) AS wrote`,
    { bind: [clientId], type: QueryTypes.SELECT },
  );
  return replyNumbersOf(row?.own ?? [], row?.wrote ?? []);
}

/**
 * A number that asked to receive no more messages is sent none, whoever it belongs to (server/messaging/README.md
 * "Sending messages", Opt-outs). Checked when the recipient is resolved, before anything is written, and again
 * immediately before the provider call (a STOP may land while a file uploads).
 */
export async function assertNumberMayReceive(recipient: Pick<TRecipient, 'digits' | 'name'>): Promise<void> {
  const optOut = await findNumberOptOut(recipient.digits);
  if (!optOut) return;
  const who = recipient.name ?? formatNumber(recipient.digits);
  const number = recipient.name ? ` from ${formatNumber(recipient.digits)}` : '';
  throw new AppError(
    'PRECONDITION_FAILED',
    `${who} asked not to receive chat messages (opted out${number} ${optOut.at.toISOString().slice(0, 10)}): nothing was sent. Contact them another way; sends resume when they send START, or a director can clear the opt-out if they ask to resume.`,
  );
}

export async function resolveRecipient(deps: Pick<TSendDeps, 'config'>, input: TRecipientInput): Promise<TRecipient> {
  if (input.resolved) {
    // Decided when it was scheduled: the number may have been deactivated since.
    await assertSendingNumber(input.resolved.firmNumberId);
    await assertNumberMayReceive(input.resolved);
    return input.resolved;
  }
  if (input.clientId !== undefined) {
    if (input.reader) await assertSubjectVisible(input.reader, { clientId: input.clientId });
    const client = await Client.findByPk(input.clientId, { attributes: ['id', 'name'] });
    if (!client) throw new AppError('NOT_FOUND', 'Client not found.');
    // An erased client is read-only (server/records/README.md "Records"): nothing is sent or scheduled to them.
    await assertClientWritable(client.id);
    const { numbers, defaultNumber } = await listReplyNumbers(client.id);
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
    await assertNumberMayReceive({ digits, name: client.name });
    let caseId: number | null = null;
    if (input.caseId !== undefined) {
      if (input.reader) await assertSubjectVisible(input.reader, { caseId: input.caseId });
      const found = await Case.findByPk(input.caseId);
      if (!found || found.clientId !== client.id)
        throw new AppError('INVALID_INPUT', 'That case does not belong to this client.', {
          caseId: ['Choose one of this client’s cases.'],
        });
      caseId = found.id;
    }
    return { digits, clientId: client.id, caseId, name: client.name, firmNumberId: await sendingNumberFor(digits, input.fromNumberId) };
  }
  const digits = requireNumberInput(input.to ?? '', deps.config.defaultCountry, 'to');
  // Same rule as inbound.
  const [match] = await queryRows<{ id: number | null }>(sql`SELECT ${matchOneClient(sql`${digits}::text`)} AS id`);
  const client = match?.id ? await Client.findByPk(match.id, { attributes: ['id', 'name'] }) : null;
  // The number is a walled client's: the message would be filed on a matter the sender may not see.
  if (client && input.reader) await assertSubjectVisible(input.reader, { clientId: client.id });
  const recipient = {
    digits,
    clientId: client?.id ?? null,
    caseId: null,
    name: client?.name ?? null,
    firmNumberId: await sendingNumberFor(digits, input.fromNumberId),
  };
  await assertNumberMayReceive(recipient);
  return recipient;
}
