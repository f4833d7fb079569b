import type { Transaction } from 'sequelize';
import { db } from './db';

// Who the app acts for in a transaction, for the rows the database writes to the trail itself when
// a protected table changes (migration 0026; server/records/README.md "Records"): `app.actor`, set
// for this transaction only, so a pooled connection never carries it to the next one.

/** Names the person (null: the system) the transaction's changes are made for. */
export async function setTransactionActor(transaction: Transaction, userId: number | null): Promise<void> {
  await db().query("SELECT set_config('app.actor', $1, true)", { bind: [userId === null ? '' : String(userId)], transaction });
}
