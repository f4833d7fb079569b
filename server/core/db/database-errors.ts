import { ConnectionError, DatabaseError, TimeoutError } from 'sequelize';

// SQLSTATE classes meaning "the database is not there right now", not "your data is wrong":
// 08 connection exception, 53 insufficient resources, 57 operator intervention (shutdown,
// statement_timeout = 57014), 58 system error.
const UNAVAILABLE_SQLSTATE = /^(08|53|57|58)/;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  if (error instanceof DatabaseError) {
    const code = (error.parent as { code?: string } | undefined)?.code;
    if (code && UNAVAILABLE_SQLSTATE.test(code)) return true;
    // node-postgres reports a dropped socket as a plain error without SQLSTATE.
    // "Query read timeout": the client-side deadline (query_timeout) on a server that does not answer.
    return /Connection terminated|ECONNREFUSED|ECONNRESET|the database system is|Query read timeout/i.test(error.message);
  }
  return false;
}

/** The SQLSTATE PostgreSQL gave a failed statement (`55P03`: a lock NOWAIT could not take), or null. */
export function sqlStateOf(error: unknown): string | null {
  return (error as { parent?: { code?: string } } | null)?.parent?.code ?? null;
}
