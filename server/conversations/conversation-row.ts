import { QueryTypes, type Transaction } from 'sequelize';
import { db } from '../core/db/db';
import { announce, OWNERSHIP_PAYLOAD } from '../events';
import type { TConversationState } from './conversation-state';

export type TConversationRow = { assigneeId: number | null; state: TConversationState; snoozedUntil: Date | null };

/**
 * A conversation's ownership row, locked for the rest of `transaction` (made first if it has none:
 * open, unassigned). Of two people changing one conversation at once, the second waits for the
 * first and then sees what the first did: the last write wins, and each is audited from what it
 * really changed.
 */
export async function lockConversationRow(key: string, transaction: Transaction): Promise<TConversationRow> {
  await db().query('INSERT INTO conversation_states (thread_key) VALUES ($1) ON CONFLICT (thread_key) DO NOTHING', {
    bind: [key],
    transaction,
  });
  const [row] = await db().query<TConversationRow>(
    `SELECT assignee_id AS "assigneeId", state, snoozed_until AS "snoozedUntil" FROM conversation_states WHERE thread_key = $1 FOR UPDATE`,
    { bind: [key], type: QueryTypes.SELECT, transaction },
  );
  if (!row) throw new Error(`conversation_states row ${key} vanished inside its transaction`);
  return row;
}

/**
 * A number's conversation becoming a client's (a link): who had it and its state go along, unless
 * the client's own conversation already has them (server/ownership/README.md "Ownership").
 */
export async function moveConversationRow(fromKey: string, toKey: string, transaction: Transaction): Promise<void> {
  await db().query(
    `WITH moved AS (DELETE FROM conversation_states WHERE thread_key = $2 RETURNING *)
       INSERT INTO conversation_states (thread_key, assignee_id, state, snoozed_until, overdue_notified_at, updated_at)
       SELECT $1, assignee_id, state, snoozed_until, overdue_notified_at, now() FROM moved
       ON CONFLICT (thread_key) DO NOTHING`,
    { bind: [toKey, fromKey], transaction },
  );
}

/** Tells every live inbox, when `transaction` commits, that conversations changed hands or state. */
export async function announceOwnershipChange(transaction: Transaction): Promise<void> {
  await announce(OWNERSHIP_PAYLOAD, transaction);
}
