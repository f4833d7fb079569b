import type { Sequelize } from 'sequelize';
import { initModels } from './models/index';

// The one database handle, imported where it is used (as the tRPC starter imports its `prisma`):
// Sequelize's models are bound to one pool per process anyway, so a second way to reach the same
// pool (a parameter, a field on a deps object) only hid which one a query ran on.
let handle: Sequelize | undefined;

/** Binds the models and `db()` to this pool (server/core/db/open-database.ts does, when the database opens). */
export function bindDatabase(sequelize: Sequelize): void {
  initModels(sequelize);
  handle = sequelize;
}

/** The open pool; throws when asked before the database has opened (a bug, not a state to handle). */
export function db(): Sequelize {
  if (!handle) throw new Error('The database is not open yet');
  return handle;
}

// Work that reads or changes a firm's records by the hundred thousand (a retention preview, an
// erasure chunk) runs on a small pool of its own, as the request role, whose statements may take
// two minutes instead of four seconds: on the request pool they would be cut off, and if allowed
// that long there, a slow one would hold a connection requests need.
let longWork: Sequelize | undefined;

export function bindLongWorkDatabase(sequelize: Sequelize): void {
  longWork = sequelize;
}

/** The pool for long statements (see above); throws before the database has opened. */
export function longWorkDb(): Sequelize {
  if (!longWork) throw new Error('The database is not open yet');
  return longWork;
}
