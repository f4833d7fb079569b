import type { QueryInterface } from 'sequelize';
import type { RunnableMigration } from 'umzug';

/**
 * One schema step. Migrations import only this type: an applied migration must do forever what it
 * did when it ran, so it never calls live code that may change later (server/decisions/0004-frozen-migrations.md).
 */
export type TMigration = RunnableMigration<QueryInterface>;
