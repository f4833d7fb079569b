import type { ProviderClient } from '../provider';
import { queryRows, sql } from '../core/sql';
import type { TNumberKeys } from './number-keys';

/** The provider client that sends as a firm number (null: demo mode, nothing leaves the server). */
export type TProviderFor = (firmNumberId: number) => Promise<ProviderClient | null>;

/**
 * Each number sends with its own key (the provider issues one per number): number 1 with the
 * configuration's client, the others with a client made from their sealed key, kept until the row
 * changes. A deactivated number's client still serves its stored files' downloads; sends from it
 * are refused before they get here.
 */
export function providersByNumber(
  configured: ProviderClient | null,
  keys: () => TNumberKeys,
  withKey: (apiKey: string) => ProviderClient,
): TProviderFor {
  const made = new Map<number, { changedAt: string; client: ProviderClient }>();
  return async (firmNumberId) => {
    if (!configured || firmNumberId === 1) return configured;
    const [row] = await queryRows<{ sealed: string | null; changedAt: string }>(
      sql`SELECT provider_key_sealed AS sealed, updated_at::text AS "changedAt" FROM firm_numbers WHERE id = ${firmNumberId}`,
    );
    if (!row?.sealed) return configured;
    const kept = made.get(firmNumberId);
    if (kept?.changedAt === row.changedAt) return kept.client;
    const client = withKey(keys().open(row.sealed));
    made.set(firmNumberId, { changedAt: row.changedAt, client });
    return client;
  };
}
