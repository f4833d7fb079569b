import type { Sequelize } from 'sequelize';
import type { TConfig } from '../config';
import type { TLogger } from '../logger';
import { ensureSearchLanguage } from './search-column';
import { startEmbeddedPostgres, type TEmbeddedDatabase } from './embedded-postgres';
import { migrateDatabase } from './migrate';
import { bindDatabase, bindLongWorkDatabase } from './db';
import { checkRequestRole, EMBEDDED_REQUEST_ROLE, ensureEmbeddedRequestRole, isLeastPrivilege } from './request-role';
import { createSequelize } from './sequelize';

/** How long one statement of the long-work pool may take (db.ts). */
const LONG_STATEMENT_MS = 120_000;

export type TDatabase = {
  sequelize: Sequelize;
  /** The request role's URL: what requests, the change feed and the workers use. */
  url: string;
  /** The owner's URL: migrations and maintenance (backup, the verifier). The same as `url` when one URL serves both. */
  ownerUrl: string;
  embedded: boolean;
  close: () => Promise<void>;
};

function withUser(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

/**
 * DATABASE_URL (and DATABASE_OWNER_URL) when set, otherwise the embedded server under DATA_DIR;
 * migrated as the owner, and the pool bound to the request role (server/records/README.md "Records").
 */
export async function openDatabase(config: TConfig, logger: TLogger): Promise<TDatabase> {
  let embedded: TEmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  let ownerUrl = config.databaseOwnerUrl ?? config.databaseUrl;
  if (!url) {
    // The database starts before the app listens, so its port must not be the app's.
    embedded = await startEmbeddedPostgres(config.dataDir, logger, { avoidPorts: [config.port] });
    ownerUrl = embedded.url();
    url = withUser(ownerUrl, EMBEDDED_REQUEST_ROLE.user, EMBEDDED_REQUEST_ROLE.password);
  }
  const requestUrl = url;
  const owner = ownerUrl!;
  const separate = owner !== requestUrl;
  const sequelize = createSequelize(requestUrl, logger);
  const longWork = createSequelize(requestUrl, logger, { poolMax: 2, statementTimeoutMs: LONG_STATEMENT_MS });
  try {
    // Schema changes get a connection of their own without the request timeouts.
    const migrator = createSequelize(owner, logger, { poolMax: 1, unbounded: true });
    try {
      if (embedded) await ensureEmbeddedRequestRole(migrator);
      const requestRole = separate ? new URL(requestUrl).username || undefined : undefined;
      const applied = await migrateDatabase(migrator, owner, {
        defaultCountry: config.defaultCountry,
        searchLanguage: config.searchLanguage,
        requestRole: requestRole ? decodeURIComponent(requestRole) : undefined,
      });
      if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
      await ensureSearchLanguage(migrator, config.searchLanguage, logger);
    } finally {
      await migrator.close().catch(() => undefined);
    }
    bindDatabase(sequelize);
    bindLongWorkDatabase(longWork);
    const role = await checkRequestRole(sequelize);
    if (!isLeastPrivilege(role)) {
      logger.warn(
        { role: role.role, superuser: role.superuser, ownsTrail: role.ownsTrail },
        separate
          ? 'the request role can change or replace the audit trail: give DATABASE_URL a role that is neither superuser nor owner (README "Records")'
          : 'one DATABASE_URL serves requests and migrations: the audit trail is only as safe as that role. Set DATABASE_OWNER_URL to the owner and DATABASE_URL to a lesser role (README "Records")',
      );
    }
  } catch (error) {
    await sequelize.close().catch(() => undefined);
    await longWork.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
  return {
    sequelize,
    url: requestUrl,
    ownerUrl: owner,
    embedded: Boolean(embedded),
    close: async () => {
      await sequelize.close().catch((err: unknown) => logger.warn({ err }, 'closing the pool failed'));
      await longWork.close().catch((err: unknown) => logger.warn({ err }, 'closing the long-work pool failed'));
      await embedded?.stop();
    },
  };
}
