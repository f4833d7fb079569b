import { DEFAULT_SECURITY_POLICY, type TSecurityPolicy } from '../../shared/security-policy';
import { recordAuditEvent, type TActor } from '../audit';
import { db } from '../core/db/db';
import { queryRows, sql } from '../core/sql';

// The firm's sign-in policy is one row (migration 0034); none means the defaults. Saves are
// serialised so each audit event describes the change from the row it replaced.

const SAVE_LOCK_KEY = 7_340_034;

/** Read in a statement of its own, or as a fragment inside another (the session check joins it). */
export const POLICY_COLUMNS = sql`
  coalesce(p.require_mfa, ${DEFAULT_SECURITY_POLICY.requireMfa}) AS "requireMfa",
  coalesce(p.session_idle_minutes, ${DEFAULT_SECURITY_POLICY.sessionIdleMinutes}) AS "sessionIdleMinutes",
  coalesce(p.session_max_hours, ${DEFAULT_SECURITY_POLICY.sessionMaxHours}) AS "sessionMaxHours"`;

export type TSecurityPolicyView = TSecurityPolicy & { updatedAt: Date | null; updatedBy: { id: number; name: string } | null };

export async function readSecurityPolicy(): Promise<TSecurityPolicyView> {
  const [row] = await queryRows<TSecurityPolicy & { updatedAt: Date | null; updatedById: number | null; updatedByName: string | null }>(sql`
    SELECT ${POLICY_COLUMNS}, p.updated_at AS "updatedAt", u.id AS "updatedById", u.name AS "updatedByName"
    FROM (SELECT 1) one LEFT JOIN security_policy p ON true LEFT JOIN users u ON u.id = p.updated_by`);
  const { updatedById, updatedByName, ...policy } = row!;
  return { ...policy, updatedBy: updatedById === null ? null : { id: updatedById, name: updatedByName ?? '' } };
}

/** What a save changed, setting by setting (`from` null: the default was in force). */
function changesOf(before: TSecurityPolicy | null, after: TSecurityPolicy) {
  const keys = ['requireMfa', 'sessionIdleMinutes', 'sessionMaxHours'] as const;
  const changed = keys.filter((k) => (before ?? DEFAULT_SECURITY_POLICY)[k] !== after[k]);
  return Object.fromEntries(changed.map((k) => [k, { from: (before ?? DEFAULT_SECURITY_POLICY)[k], to: after[k] }]));
}

/** Saves the policy (a director, checked by the router), audited `settings.security` with what changed. */
export async function saveSecurityPolicy(actor: TActor, policy: TSecurityPolicy): Promise<TSecurityPolicyView> {
  await db().transaction(async (transaction) => {
    await queryRows(sql`SELECT pg_advisory_xact_lock(${SAVE_LOCK_KEY})`, { transaction });
    const [before] = await queryRows<TSecurityPolicy>(sql`SELECT ${POLICY_COLUMNS} FROM security_policy p`, { transaction });
    const changes = changesOf(before ?? null, policy);
    if (Object.keys(changes).length === 0 && before) return;
    await queryRows(
      sql`INSERT INTO security_policy (singleton, require_mfa, session_idle_minutes, session_max_hours, updated_by, updated_at)
          VALUES (true, ${policy.requireMfa}, ${policy.sessionIdleMinutes}, ${policy.sessionMaxHours}, ${actor.userId}, now())
          ON CONFLICT (singleton) DO UPDATE SET require_mfa = excluded.require_mfa,
            session_idle_minutes = excluded.session_idle_minutes, session_max_hours = excluded.session_max_hours,
            updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      { transaction },
    );
    await recordAuditEvent({ actor, action: 'settings.security', subject: 'security_policy', detail: changes }, transaction);
  });
  return readSecurityPolicy();
}
