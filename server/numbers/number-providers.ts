import { AppError } from '../core/errors';
import type { ProviderClient } from '../provider';
import { queryRows, sql } from '../core/sql';
import type { TNumberKeys } from './number-keys';

/**
 * The provider client that acts as a firm number (null: demo mode, nothing leaves the server).
 * `use`: 'send' (the default: a message, a reaction, a read mark, a connection check) is refused for a
 * deactivated number; 'download' fetches a file that already came in through it.
 */
export type TProviderFor = (firmNumberId: number, use?: 'send' | 'download') => Promise<ProviderClient | null>;

/** Why a number's sealed key cannot be used: the signing key file it was sealed under is not this one. */
export const unreadableKey = (label: string) =>
  `The provider key of “${label}” cannot be opened with this server's signing key (was the key file replaced?): enter it again in Settings › Business numbers.`;

/**
 * Each number acts with its own key (the provider issues one per number): number 1 with the
 * configuration's client, the others with a client made from their sealed key, kept until the row
 * changes. Nothing goes out through a deactivated number.
 */
export function providersByNumber(
  configured: ProviderClient | null,
  keys: () => TNumberKeys,
  withKey: (apiKey: string) => ProviderClient,
): TProviderFor {
  const made = new Map<number, { changedAt: string; client: ProviderClient }>();
  return async (firmNumberId, use = 'send') => {
    if (!configured || firmNumberId === 1) return configured;
    const [row] = await queryRows<{ label: string; active: boolean; sealed: string | null; changedAt: string }>(
      sql`SELECT label, active, provider_key_sealed AS sealed, updated_at::text AS "changedAt" FROM firm_numbers WHERE id = ${firmNumberId}`,
    );
    if (!row) throw new AppError('NOT_FOUND', 'That number is not one of the firm’s.');
    if (!row.active && use === 'send')
      throw new AppError('PRECONDITION_FAILED', `“${row.label}” was deactivated: nothing goes out through it.`);
    if (!row.sealed)
      throw new AppError('PRECONDITION_FAILED', `“${row.label}” has no provider key: enter it in Settings › Business numbers.`);
    const kept = made.get(firmNumberId);
    if (kept?.changedAt === row.changedAt) return kept.client;
    let apiKey: string;
    try {
      apiKey = keys().open(row.sealed);
    } catch {
      throw new AppError('PRECONDITION_FAILED', unreadableKey(row.label));
    }
    const client = withKey(apiKey);
    made.set(firmNumberId, { changedAt: row.changedAt, client });
    return client;
  };
}
