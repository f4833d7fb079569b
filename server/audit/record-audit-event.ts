import type { Transaction } from 'sequelize';
import { AUDIT_ACTIONS, type TAuditAction, type TAuditDetail } from '../../shared/audit/audit-details';
import { db } from '../core/db/db';
import type { TReader } from '../core/visibility';
import { checkpointAfterExport } from './checkpoint-schedule';

// The actions and each one's detail are typed once, in shared/audit/audit-details.ts, for the
// server and the SPA's sentences alike (server/decisions/0012-append-only-audit-trail.md).
export { AUDIT_ACTIONS };
export type { TAuditAction, TAuditDetail };

/** Who acted and from where; a null user is the system or an anonymous caller. */
export type TActor = { userId: number | null; ip: string | null };

/** A person reading or acting through a request, as the trail names them. */
export const actorOf = (reader: TReader): TActor => ({ userId: reader.id, ip: reader.ip });

/** The server itself (a webhook event, a script): no user, no address. */
export const SYSTEM_ACTOR: TActor = { userId: null, ip: null };

/** The detail an action's event is given: optional where every field is (an action with none takes none). */
type TDetailOf<A extends TAuditAction> =
  Record<never, never> extends TAuditDetail<A> ? { detail?: TAuditDetail<A> } : { detail: TAuditDetail<A> };

/** One event, its detail of its action's type. */
export type TAuditEvent<A extends TAuditAction = TAuditAction> = { actor: TActor; action: A; subject: string } & TDetailOf<A>;

/**
 * Appends one event. Pass the transaction of the change it records, so the change and its
 * record commit together or not at all.
 */
export async function recordAuditEvent<A extends TAuditAction>(event: TAuditEvent<A>, transaction?: Transaction): Promise<void> {
  await db().query('INSERT INTO public.audit_events (user_id, action, subject, detail, ip) VALUES ($1, $2, $3, $4::jsonb, $5)', {
    bind: [event.actor.userId, event.action, event.subject, JSON.stringify(event.detail ?? {}), event.actor.ip],
    transaction,
  });
  // The head an export carries is signed as soon as its event is in (server/audit/checkpoint-schedule.ts).
  if (event.action === 'export.create') {
    if (transaction) transaction.afterCommit(() => checkpointAfterExport());
    else await checkpointAfterExport();
  }
}
