import type { Transaction } from 'sequelize';
import { announce, RESYNC_PAYLOAD } from '../events';

/**
 * Tells every live view, on every instance, to read again when the wall change commits: a person
 * just screened loses the conversation on their open page at once (it answers NOT_FOUND now), and
 * a new member sees the matter appear.
 */
export async function announceAccessChange(transaction: Transaction): Promise<void> {
  await announce(RESYNC_PAYLOAD, transaction);
}
