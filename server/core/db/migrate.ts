import type { CountryCode } from 'libphonenumber-js/min';
import pg from 'pg';
import type { Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import type { TSearchLanguage } from '../search-language';
import type { TMigration } from './migration-type';
import { grantRequestRole } from './request-role';
import { initialSchema } from './migrations/0001-initial-schema';
import { readState } from './migrations/0002-read-state';
import { chatThreads } from './migrations/0003-chat-threads';
import { rateLimits } from './migrations/0004-rate-limits';
import { clientNumbers } from './migrations/0005-client-numbers';
import { auditEvents } from './migrations/0006-audit-events';
import { templatesAndOptOuts } from './migrations/0007-templates-and-opt-outs';
import { attachments } from './migrations/0008-attachments';
import { sentBy } from './migrations/0009-sent-by';
import { threadFilters } from './migrations/0010-thread-filters';
import { messageSearch } from './migrations/0011-message-search';
import { searchStatistics } from './migrations/0012-search-statistics';
import { userAdminAndWebhookDeliveries } from './migrations/0013-user-admin-and-webhook-deliveries';
import { numberOptOuts } from './migrations/0014-number-opt-outs';
import { resumableUploads } from './migrations/0015-resumable-uploads';
import { sendEchoIds } from './migrations/0016-send-echo-ids';
import { keptReceiptRecipients } from './migrations/0017-kept-receipt-recipients';
import { ethicalWalls } from './migrations/0018-ethical-walls';
import { ownership } from './migrations/0019-ownership';
import { records } from './migrations/0020-records';
import { reach } from './migrations/0021-reach';
import { courtBundle } from './migrations/0022-court-bundle';
import { unlessReplied } from './migrations/0023-unless-replied';
import { recordVersions } from './migrations/0024-record-versions';
import { auditCheckpoints } from './migrations/0025-audit-checkpoints';
import { protectedChanges } from './migrations/0026-protected-changes';
import { protectedChangesAlways } from './migrations/0027-protected-changes-always';
import { checkpointLinks } from './migrations/0028-checkpoint-links';
import { caseClosures } from './migrations/0029-case-closures';
import { sessionDetails } from './migrations/0030-session-details';
import { invitations } from './migrations/0033-invitations';
import { secondFactors } from './migrations/0031-second-factors';
import { passkeys } from './migrations/0032-passkeys';
import { securityPolicy } from './migrations/0034-security-policy';
import { readMarks } from './migrations/0035-read-marks';
import { readReceiptPolicy } from './migrations/0036-read-receipt-policy';
import { wording } from './migrations/0038-wording';
import { unreadKeptCounts } from './migrations/0039-unread-kept-counts';
import { firmNumbers } from './migrations/0040-firm-numbers';
import { phoneImports } from './migrations/0041-phone-imports';
import { numberRoutesAnnounced } from './migrations/0042-number-routes-announced';
import { unreadRemovalsLogged } from './migrations/0043-unread-removals-logged';

export type TMigrationOptions = {
  /** Where national numbers already stored are read (0005). */
  defaultCountry?: CountryCode;
  /** The text-search configuration the search column is built for (0011). */
  searchLanguage?: TSearchLanguage;
  /** Stop after this migration (tests of a data migration). */
  to?: string;
  /** The role requests run as, granted its rights after the migrations (server/core/db/request-role.ts). */
  requestRole?: string;
};

/** In order; append new migrations, never edit an applied one. */
export function listMigrations(options: TMigrationOptions = {}): TMigration[] {
  return [
    initialSchema,
    readState,
    chatThreads,
    rateLimits,
    clientNumbers(options.defaultCountry),
    auditEvents,
    templatesAndOptOuts,
    attachments,
    sentBy,
    threadFilters,
    messageSearch(options.searchLanguage),
    searchStatistics,
    userAdminAndWebhookDeliveries,
    numberOptOuts,
    resumableUploads,
    sendEchoIds,
    keptReceiptRecipients,
    ethicalWalls,
    ownership,
    records,
    reach,
    courtBundle,
    unlessReplied,
    recordVersions,
    auditCheckpoints,
    protectedChanges,
    protectedChangesAlways,
    checkpointLinks,
    caseClosures,
    sessionDetails,
    secondFactors,
    passkeys,
    invitations,
    securityPolicy,
    readMarks,
    readReceiptPolicy,
    wording,
    unreadKeptCounts,
    firmNumbers,
    phoneImports,
    numberRoutesAnnounced,
    unreadRemovalsLogged,
  ];
}

export const MIGRATION_NAMES = listMigrations().map((m) => m.name);

// Any constant works; it only has to be the same for every instance of this app.
const MIGRATION_LOCK_KEY = 7_340_019;

/**
 * Applies pending migrations. An advisory lock held on a separate connection makes
 * two instances starting together run them once, one after the other.
 */
export async function migrateDatabase(sequelize: Sequelize, databaseUrl: string, options: TMigrationOptions = {}): Promise<string[]> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const umzug = new Umzug({
      migrations: listMigrations(options),
      context: sequelize.getQueryInterface(),
      storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
      logger: undefined,
    });
    const applied = await umzug.up(options.to ? { to: options.to } : {});
    if (options.requestRole) await grantRequestRole(sequelize, options.requestRole);
    return applied.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}
