import { queryRows, sql } from '../core/sql';
import type { TNumberKeys } from './number-keys';

/** An active firm number as the webhook routes to it: how the provider names it, and the secret its deliveries prove. */
export type TNumberRoute = { id: number; digits: string; phoneNumberId: string | null; secret: string | undefined };

/**
 * The firm's active numbers, read for each delivery (a tiny table: a number added a moment ago is
 * routed at once, never ignored). A number without its own webhook secret proves the firm's.
 */
export async function readNumberRoutes(keys: () => TNumberKeys, firmSecret: string | undefined): Promise<TNumberRoute[]> {
  const rows = await queryRows<{ id: number; digits: string; phoneNumberId: string | null; sealed: string | null }>(
    sql`SELECT id, digits, phone_number_id AS "phoneNumberId", webhook_secret_sealed AS sealed FROM firm_numbers WHERE active ORDER BY id`,
  );
  return rows.map(({ sealed, ...row }) => ({ ...row, secret: sealed ? keys().open(sealed) : firmSecret }));
}
