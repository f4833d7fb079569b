import type { Transaction } from 'sequelize';
import { announce, OWNERSHIP_PAYLOAD } from '../events';

/**
 * Tells every live page, when `transaction` commits, that conversations' scheduled sends changed,
 * so an open conversation's list and the "Scheduled" page read them again. It rides the change
 * feed's existing `{ownership: true}` payload (conversations' lists read again): it names nothing,
 * so nothing crosses a wall, and each page reads only what its person may see. A send that goes is
 * announced by its record, as every send is.
 */
export async function announceScheduledChange(transaction: Transaction): Promise<void> {
  await announce(OWNERSHIP_PAYLOAD, transaction);
}
