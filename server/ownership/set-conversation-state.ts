import { actorOf, recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import type { TReader } from '../core/visibility';
import { announceOwnershipChange, lockConversationRow, type TConversationState } from '../conversations';
import { conversationSubject } from './assign-conversation';
import { findConversation, type TConversationRef } from './conversation-ref';

/** The furthest a conversation may be snoozed: a year. */
const MAX_SNOOZE_MS = 366 * 24 * 60 * 60 * 1000;

/**
 * Opens, finishes or snoozes a conversation (until `snoozeUntil`, when it opens again by itself:
 * server/decisions/0017-conversation-timers-on-their-row.md). Audited `inbox.state`.
 */
export async function setConversationState(
  reader: TReader,
  ref: TConversationRef,
  change: { state: TConversationState; snoozeUntil?: Date },
  now: Date,
): Promise<{ state: TConversationState; snoozedUntil: Date | null }> {
  const until = change.state === 'snoozed' ? checkSnoozeUntil(change.snoozeUntil, now) : null;
  const conversation = await findConversation(reader, ref);
  return db().transaction(async (transaction) => {
    const before = await lockConversationRow(conversation.key, transaction);
    const after = { state: change.state, snoozedUntil: until };
    if (before.state === after.state && before.snoozedUntil?.getTime() === until?.getTime()) return after;
    await db().query('UPDATE conversation_states SET state = $2, snoozed_until = $3, updated_at = now() WHERE thread_key = $1', {
      bind: [conversation.key, after.state, until],
      transaction,
    });
    await recordAuditEvent(
      {
        actor: actorOf(reader),
        action: 'inbox.state',
        subject: conversationSubject(conversation),
        detail: { from: before.state, to: after.state, ...(until ? { snoozeUntil: until.toISOString() } : {}) },
      },
      transaction,
    );
    await announceOwnershipChange(transaction);
    return after;
  });
}

function checkSnoozeUntil(until: Date | undefined, now: Date): Date {
  if (!until) throw new AppError('INVALID_INPUT', 'Say until when to snooze the conversation.', { snoozeUntil: ['Pick a time.'] });
  if (until.getTime() <= now.getTime())
    throw new AppError('INVALID_INPUT', 'A snooze must end in the future: pick a later time.', { snoozeUntil: ['That time has passed.'] });
  if (until.getTime() - now.getTime() > MAX_SNOOZE_MS)
    throw new AppError('INVALID_INPUT', 'A conversation can be snoozed for a year at most.', { snoozeUntil: ['Too far ahead.'] });
  return until;
}
