import { queryRows, sql } from '../core/sql';
import type { TNumberKeys } from './number-keys';

/** A firm number as the webhook routes to it: how the provider names it, and the secret its deliveries prove (none once deactivated). */
export type TNumberRoute = { id: number; digits: string; phoneNumberId: string | null; active: boolean; secret: string | undefined };

/**
 * Every number the firm has had, as the webhook routes by them (kept between changes:
 * number-route-cache.ts). A number without its own webhook secret proves the firm's; a
 * deactivated one proves none, and is known only so that what is posted for it is told apart. A
 * secret that cannot be opened (the signing key file was replaced) proves nothing, and `onUnreadable`
 * is told which number it is: the other numbers' deliveries go on.
 */
export async function readNumberRoutes(
  keys: () => TNumberKeys,
  firmSecret: string | undefined,
  onUnreadable: (number: { id: number; label: string }) => void = () => undefined,
): Promise<TNumberRoute[]> {
  const rows = await queryRows<{
    id: number;
    label: string;
    digits: string;
    phoneNumberId: string | null;
    active: boolean;
    sealed: string | null;
  }>(
    sql`SELECT id, label, digits, phone_number_id AS "phoneNumberId", active, webhook_secret_sealed AS sealed FROM firm_numbers ORDER BY active DESC, id`,
  );
  return rows.map(({ sealed, label, ...row }) => {
    if (!row.active) return { ...row, secret: undefined };
    if (!sealed) return { ...row, secret: firmSecret };
    try {
      return { ...row, secret: keys().open(sealed) };
    } catch {
      onUnreadable({ id: row.id, label });
      return { ...row, secret: undefined };
    }
  });
}

/** The active numbers whose sealed key or webhook secret cannot be opened with this signing key file (said at start). */
export async function findUnreadableNumbers(keys: () => TNumberKeys): Promise<{ id: number; label: string }[]> {
  const rows = await queryRows<{ id: number; label: string; sealed: (string | null)[] }>(
    sql`SELECT id, label, ARRAY[provider_key_sealed, webhook_secret_sealed] AS sealed FROM firm_numbers WHERE active ORDER BY id`,
  );
  return rows.filter((row) =>
    row.sealed.some((sealed) => {
      if (!sealed) return false;
      try {
        keys().open(sealed);
        return false;
      } catch {
        return true;
      }
    }),
  );
}
