import { actorOf, recordAuditEvent } from '../audit';
import { announceOwnershipChange, lockConversationRow } from '../conversations';
import { db } from '../core/db/db';
import type { TReader } from '../core/visibility';
import { notifyPeople, type TNewNotification } from '../notifications';
import { findConversation, findPersonWhoMaySee, type TConversationRef, type TPersonRef } from './conversation-ref';

/** The audit trail's name for a conversation: its client, or its number. */
export const conversationSubject = (c: { clientId: number | null; phone: string | null }): string =>
  c.clientId !== null ? `client:${c.clientId}` : `phone:${c.phone ?? ''}`;

/**
 * Gives the conversation to `userId` (null: to nobody). The new person and the one it is taken
 * from are told (never the person acting, of their own act); audited `inbox.assign`.
 */
export async function assignConversation(
  reader: TReader,
  ref: TConversationRef,
  userId: number | null,
): Promise<{ assignee: TPersonRef | null }> {
  const conversation = await findConversation(reader, ref);
  return db().transaction(async (transaction) => {
    const assignee = userId === null ? null : await findPersonWhoMaySee(userId, conversation, 'be assigned this conversation', transaction);
    const before = await lockConversationRow(conversation.key, transaction);
    if (before.assigneeId === (assignee?.id ?? null)) return { assignee };
    await db().query(
      'UPDATE conversation_states SET assignee_id = $2, overdue_notified_at = NULL, updated_at = now() WHERE thread_key = $1',
      {
        bind: [conversation.key, assignee?.id ?? null],
        transaction,
      },
    );
    await recordAuditEvent(
      {
        actor: actorOf(reader),
        action: 'inbox.assign',
        subject: conversationSubject(conversation),
        detail: { from: before.assigneeId, to: assignee?.id ?? null },
      },
      transaction,
    );
    const told: TNewNotification[] = [before.assigneeId, assignee?.id ?? null]
      .filter((id): id is number => id !== null)
      .map((id) => ({ userId: id, kind: 'assigned', threadKey: conversation.key, actorId: reader.id, assigneeId: assignee?.id ?? null }));
    await notifyPeople(told, transaction);
    await announceOwnershipChange(transaction);
    return { assignee };
  });
}
