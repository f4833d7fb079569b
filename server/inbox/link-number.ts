import { QueryTypes } from 'sequelize';
import { threadKeyOfRef } from '../../shared/thread-key';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { formatNumber } from '../core/phone-input';
import { queryRows, sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { assertSubjectVisible } from '../access';
import { actorOf, recordAuditEvent } from '../audit';
import { moveConversationRow, phoneDigitsOf } from '../conversations';
import { assertNumberFreeOrConfirmed, insertClientNumber, removeNumberRow } from '../crm';

/**
 * Files an unlinked number's records under a client and adds the number to the client, so its
 * later messages file themselves: an explicit person's decision, the only way an ambiguous number
 * is ever linked. A number another client has needs `confirm` (CONFLICT naming that client). The
 * records' UPDATE comes first and locks them: of two people linking the same number at once, the
 * second finds nothing left to link (CONFLICT) and adds nothing. Records unlinked earlier get their
 * case back when they return to the same client, if the person linking may see that case (else
 * they stay on none: nobody files into a case they are walled from). Recorded in the audit trail.
 */
export async function linkPhoneToClient(reader: TReader, input: { phone: string; clientId: number; confirm?: boolean }): Promise<number[]> {
  await assertSubjectVisible(reader, { clientId: input.clientId });
  const actor = actorOf(reader);
  const digits = phoneDigitsOf(input.phone);
  await assertNumberFreeOrConfirmed(reader, digits, input.clientId, input.confirm);
  return db().transaction(async (transaction) => {
    const rows = await queryRows<{ id: number }>(
      sql`UPDATE communications c
       SET client_id = ${input.clientId},
           case_id = coalesce(c.case_id, (SELECT k.id FROM cases k WHERE k.id = (c.metadata->>'unlinked_case_id')::int AND k.client_id = ${input.clientId}
                                          AND ${visibleTo(reader, sql`k.client_id`, sql`k.id`)})),
           metadata = c.metadata - 'unlinked_case_id',
           updated_at = now()
       WHERE c.type IN ('chat', 'chat_note') AND c.client_id IS NULL AND c.peer_phone = ${digits} RETURNING c.id`,
      { transaction },
    );
    if (rows.length === 0)
      throw new AppError('CONFLICT', `${formatNumber(digits)} has no unlinked messages: it may just have been linked by someone else.`);
    await insertClientNumber(input.clientId, digits, actor, 'link', transaction);
    // The number's conversation is now the client's: who had it and its state go along, unless the
    // client's own conversation already has them, and its notifications open the client's
    // (server/ownership/README.md "Ownership").
    await moveConversationRow(threadKeyOfRef({ phone: digits }), threadKeyOfRef({ clientId: input.clientId }), transaction);
    await db().query('UPDATE notifications SET thread_key = $1 WHERE thread_key = $2', {
      bind: [threadKeyOfRef({ clientId: input.clientId }), threadKeyOfRef({ phone: digits })],
      transaction,
    });
    const ids = rows.map((r) => r.id);
    await recordAuditEvent(
      { actor, action: 'inbox.link', subject: `client:${input.clientId}`, detail: { digits, moved: ids.length, ids } },
      transaction,
    );
    return ids;
  });
}

/**
 * Undoes a link: the number (only one linked from the inbox) leaves the client and that number's
 * chat records, the firm's replies to it included, go back to unlinked and off the client's cases
 * (a case file must not show a stranger's conversation); each remembers its case, restored if it is
 * linked back to the same client. Returns the records moved.
 */
export async function unlinkPhoneFromClient(reader: TReader, input: { phone: string; clientId: number }): Promise<number[]> {
  await assertSubjectVisible(reader, { clientId: input.clientId });
  const actor = actorOf(reader);
  const digits = phoneDigitsOf(input.phone);
  return db().transaction(async (transaction) => {
    await removeNumberRow(input.clientId, digits, transaction, { onlyLinked: true });
    // Unlinked records are read by all staff: one on a case the reader is walled from must not get
    // there by their hand (server/access/README.md "Ethical walls").
    const [walled] = await queryRows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM communications c
       WHERE c.type IN ('chat', 'chat_note') AND c.client_id = ${input.clientId} AND c.peer_phone = ${digits} AND NOT ${visibleTo(reader, sql`c.client_id`, sql`c.case_id`)}`,
      { transaction },
    );
    if (walled && walled.n > 0)
      throw new AppError(
        'CONFLICT',
        `Some of ${formatNumber(digits)}'s messages are filed where you cannot see them: a director who can see them must unlink this number.`,
      );
    const rows = await db().query<{ id: number }>(
      `UPDATE communications
       SET client_id = NULL, case_id = NULL, updated_at = now(),
           metadata = CASE WHEN case_id IS NULL THEN metadata ELSE metadata || jsonb_build_object('unlinked_case_id', case_id) END
       WHERE type IN ('chat', 'chat_note') AND client_id = $1 AND peer_phone = $2 RETURNING id`,
      { bind: [input.clientId, digits], type: QueryTypes.SELECT, transaction },
    );
    const ids = rows.map((r) => r.id);
    await recordAuditEvent(
      { actor, action: 'inbox.unlink', subject: `client:${input.clientId}`, detail: { digits, moved: ids.length, ids } },
      transaction,
    );
    return ids;
  });
}
