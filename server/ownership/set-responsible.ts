import { QueryTypes } from 'sequelize';
import { actorOf, recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import type { TReader } from '../core/visibility';
import { findConversation, findPersonWhoMaySee, type TPersonRef } from './conversation-ref';

/**
 * Names the person who is given the client's conversation when it first needs someone (null:
 * nobody); they must be active and able to see the client. Audited `client.responsible`.
 */
export async function setClientResponsible(
  reader: TReader,
  clientId: number,
  userId: number | null,
): Promise<{ responsible: TPersonRef | null }> {
  const conversation = await findConversation(reader, { clientId });
  return db().transaction(async (transaction) => {
    const person = userId === null ? null : await findPersonWhoMaySee(userId, conversation, 'be responsible for this client', transaction);
    const [before] = await db().query<{ id: number | null }>('SELECT responsible_user_id AS id FROM clients WHERE id = $1 FOR UPDATE', {
      bind: [clientId],
      type: QueryTypes.SELECT,
      transaction,
    });
    if ((before?.id ?? null) === (person?.id ?? null)) return { responsible: person };
    await db().query('UPDATE clients SET responsible_user_id = $2, updated_at = now() WHERE id = $1', {
      bind: [clientId, person?.id ?? null],
      transaction,
    });
    await recordAuditEvent(
      {
        actor: actorOf(reader),
        action: 'client.responsible',
        subject: `client:${clientId}`,
        detail: { from: before?.id ?? null, to: person?.id ?? null },
      },
      transaction,
    );
    return { responsible: person };
  });
}
