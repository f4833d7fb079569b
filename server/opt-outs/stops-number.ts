import type { Transaction } from 'sequelize';
import { queryRows, sql, type Sql } from '../core/sql';

/**
 * SQL: whether the opt-out row `optOut` (an alias, as sql`o`) stops sends to the digits `digits`
 * (an expression, as sql`n.digits`): its own number, or another spelling of it in the same country
 * (the same calling code and last 9 digits: +54 9 11… and +54 11… are one phone). Never across
 * countries: +34 612 345 678 is not +33 612 345 678.
 */
export function stopsNumber(optOut: Sql, digits: Sql): Sql {
  return sql`(${optOut}.digits = ${digits} OR (${optOut}.last9 = right(${digits}, 9) AND ${optOut}.calling_code IS NOT NULL
           AND left(${digits}, length(${optOut}.calling_code)) = ${optOut}.calling_code))`;
}

/**
 * The opt-out that stops sends to a number, if any: its own, or one from another spelling of it in
 * its country (stopsNumber). Erring this way refuses a send that might have gone; erring the
 * other way sends to someone who said STOP.
 */
export async function findNumberOptOut(digits: string, transaction?: Transaction): Promise<{ at: Date; source: string } | null> {
  const [row] = await queryRows<{ at: Date; source: string }>(
    sql`SELECT at, source FROM number_opt_outs o WHERE o.last9 = right(${digits}, 9) AND ${stopsNumber(sql`o`, sql`${digits}`)} ORDER BY o.digits = ${digits} DESC, o.at LIMIT 1`,
    { transaction },
  );
  return row ?? null;
}
