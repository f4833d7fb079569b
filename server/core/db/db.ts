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
