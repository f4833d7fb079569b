import { queryRows, sql } from '../core/sql';
import type { TNumberKeys } from './number-keys';

/** A firm number as the webhook routes to it: how the provider names it, and the secret its deliveries prove (none once deactivated). */
export type TNumberRoute = { id: number; digits: string; phoneNumberId: string | null; active: boolean; secret: string | undefined };

/**
 * Every number the firm has had, read for each delivery (a tiny table: a number added a moment ago
 * is routed at once, never ignored). A number without its own webhook secret proves the firm's; a
 * deactivated one proves none, and is known only so that what is posted for it is told apart.
 */
export async function readNumberRoutes(keys: () => TNumberKeys, firmSecret: string | undefined): Promise<TNumberRoute[]> {
  const rows = await queryRows<{ id: number; digits: string; phoneNumberId: string | null; active: boolean; sealed: string | null }>(
    sql`SELECT id, digits, phone_number_id AS "phoneNumberId", active, webhook_secret_sealed AS sealed FROM firm_numbers ORDER BY active DESC, id`,
  );
  return rows.map(({ sealed, ...row }) => ({ ...row, secret: !row.active ? undefined : sealed ? keys().open(sealed) : firmSecret }));
}
