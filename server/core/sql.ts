import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import sql, { empty, join, raw, Sql } from 'sql-template-tag';
import { db } from './db/db';

// SQL as a tagged template, so a fragment carries its own values and whoever embeds it numbers
// nothing: sql`… ${visibleTo(reader, sql`c.id`, null)} AND c.id = ${id}` is { text, values }, with
// the nested fragments' values numbered $1…$n in the order they appear. sql-template-tag is the
// library: small, typed, no dependencies, and it nests and renumbers fragments for PostgreSQL's
// $n, which is all this needs; Sequelize stays the way statements run (queryRows below).
//
// What is code goes in as code: a nested sql`c.client_id` fragment, or raw() for a name the code
// chose from a fixed set (a column, an alias). What is data only ever goes in as a value.
export { empty, join, raw, sql, Sql };

/** A whole number written into the text (a LIMIT, a fixed size the code chose), checked to be one. */
export function sqlInteger(n: number): Sql {
  if (!Number.isSafeInteger(n)) throw new TypeError(`Not a whole number: ${n}`);
  return raw(String(n));
}

/** Where a statement runs: in a transaction, and on a pool other than db() (the long-work pool). */
export type TRunOptions = { transaction?: Transaction; on?: Sequelize };

/**
 * Runs a statement built with `sql` and returns its rows (a SELECT, or a write with RETURNING; none
 * otherwise), with its values bound, never pasted in.
 */
export function queryRows<T extends object>(query: Sql, options: TRunOptions = {}): Promise<T[]> {
  const values = query.values;
  // No values, no bind: Sequelize then leaves the text alone, as it does for any statement without one.
  return (options.on ?? db()).query<T>(query.text, {
    ...(values.length ? { bind: values } : {}),
    type: QueryTypes.SELECT,
    transaction: options.transaction,
  });
}

/**
 * The fragment's text with its values written in, for the one place a value cannot be bound: a
 * Sequelize `literal()` inside a model finder's options, whose statement Sequelize writes itself.
 * Numbers, booleans and NULL only (an id, a flag): text is never written into SQL.
 */
export function inlineSql(fragment: Sql): string {
  return fragment.strings.reduce((text, part, i) => {
    if (i === 0) return part;
    const value = fragment.values[i - 1];
    if (value === null) return `${text}NULL${part}`;
    if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return `${text}${String(value)}${part}`;
    throw new TypeError(`Only numbers, booleans and NULL are written into SQL text, not a ${typeof value}: bind it instead`);
  }, '');
}
