import { QueryTypes } from 'sequelize';
import { parsePhoneDigits, replyNumbersOf } from '../../shared/phone';
import { assertSubjectVisible } from '../access';
import { findNumberOptOut } from '../crm';
import { db } from '../core/db/db';
import { Case, Client } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { formatNumber, requireNumberInput } from '../core/phone-input';
import type { TConfig } from '../core/config';
import type { TReader } from '../core/visibility';

export type TScheduledRecipient = { clientId: number; clientName: string; caseId: number | null; digits: string };

/**
 * Who a scheduled send goes to, decided when it is scheduled, as the send path decides it for a
 * send now (messaging's resolveRecipient): a client the person may see, one of the numbers its
 * conversation may reply to (by default the one that last wrote), a case of that client, and a
 * number that has not opted out. The number is fixed here: the composer showed it, and nothing is
 * ever sent to a number other than the one shown (README "Scheduled sends").
 */
export async function resolveScheduledRecipient(
  config: Pick<TConfig, 'defaultCountry'>,
  reader: TReader,
  input: { clientId: number; to?: string; caseId?: number },
): Promise<TScheduledRecipient> {
  await assertSubjectVisible(reader, { clientId: input.clientId });
  const client = await Client.findByPk(input.clientId, { attributes: ['id', 'name'] });
  if (!client) throw new AppError('NOT_FOUND', 'Client not found.');
  const { numbers, defaultNumber } = await findReplyNumbers(client.id);
  let digits = defaultNumber;
  if (input.to !== undefined) {
    const listed = parsePhoneDigits(input.to);
    digits = listed && numbers.includes(listed) ? listed : requireNumberInput(input.to, config.defaultCountry, 'to');
    if (!numbers.includes(digits))
      throw new AppError('INVALID_INPUT', `${formatNumber(digits)} is not one of ${client.name}'s numbers.`, {
        to: [`Choose one of ${client.name}'s numbers.`],
      });
  }
  if (!digits) throw new AppError('INVALID_INPUT', `${client.name} has no number to send to; add one on the client first.`);
  await assertMayReceive(digits, client.name);
  let caseId: number | null = null;
  if (input.caseId !== undefined) {
    await assertSubjectVisible(reader, { caseId: input.caseId });
    const found = await Case.findByPk(input.caseId, { attributes: ['id', 'clientId'] });
    if (!found || found.clientId !== client.id)
      throw new AppError('INVALID_INPUT', 'That case does not belong to this client.', { caseId: ['Choose one of this client’s cases.'] });
    caseId = found.id;
  }
  return { clientId: client.id, clientName: client.name, caseId, digits };
}

/** The client's own numbers and those of them that wrote, newest first: what replyNumbersOf chooses from. */
async function findReplyNumbers(clientId: number): Promise<{ numbers: string[]; defaultNumber: string | null }> {
  const [row] = await db().query<{ own: string[] | null; wrote: string[] | null }>(
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

/** A number that opted out is refused now, in the words a send now would use (PRECONDITION_FAILED). */
async function assertMayReceive(digits: string, name: string): Promise<void> {
  const optOut = await findNumberOptOut(digits);
  if (!optOut) return;
  throw new AppError(
    'PRECONDITION_FAILED',
    `${name} asked not to receive chat messages (opted out from ${formatNumber(digits)} ${optOut.at.toISOString().slice(0, 10)}): nothing was sent. Contact them another way; sends resume when they send START, or a director can clear the opt-out if they ask to resume.`,
  );
}
