import type { Transaction } from 'sequelize';
import { AppError } from './errors';
import { empty, queryRows, sql } from './sql';

// An erased client is final (server/records/README.md "Records"): nothing new is written about them, so
// nothing of theirs comes back after the certificate. Here, in the core, for every feature that writes about a client.

const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** The one refusal every write about an erased client gives. */
export const erasedClientMessage = (erasedAt: Date) => `This client was erased on ${DAY.format(erasedAt)} and is read-only.`;

/**
 * CONFLICT when the client was erased; nothing when not (or when there is no such client: the
 * caller's own check says NOT_FOUND). Given a transaction, it locks the client's row against an
 * erasure finishing meanwhile.
 */
export async function assertClientWritable(clientId: number, transaction?: Transaction): Promise<void> {
  const [row] = await queryRows<{ erased_at: Date | null }>(
    sql`SELECT erased_at FROM clients WHERE id = ${clientId}${transaction ? sql` FOR SHARE` : empty}`,
    transaction ? { transaction } : {},
  );
  if (row?.erased_at) throw new AppError('CONFLICT', erasedClientMessage(new Date(row.erased_at)));
}
