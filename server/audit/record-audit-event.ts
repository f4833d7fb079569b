import type { Transaction } from 'sequelize';
import { db } from '../core/db/db';
import type { TReader } from '../core/visibility';

/** The actions the trail records (server/decisions/0012-append-only-audit-trail.md). */
export const AUDIT_ACTIONS = [
  'auth.sign_in',
  'auth.sign_in_failed',
  'auth.sign_in_limited',
  'auth.sign_out',
  'inbox.link',
  'inbox.unlink',
  'client.number_add',
  'client.number_remove',
  'export.create',
  'export.verify',
  'settings.check_connection',
  'templates.refresh',
  'client.opt_out',
  'client.opt_in',
  'chat.reconciled',
  'communication.refile',
  'user.add',
  'user.role_change',
  'user.deactivate',
  'user.reactivate',
  'access.restrict',
  'access.unrestrict',
  'access.member_add',
  'access.member_remove',
  'access.screen',
  'access.unscreen',
  'access.denied',
  'inbox.assign',
  'inbox.state',
  'client.responsible',
  'case.status',
  'media.view',
  'hold.place',
  'hold.release',
  'retention.destroy',
  'erasure.request',
  'erasure.decide',
  'audit.verify',
  'chat.schedule',
  'chat.edit_scheduled',
  'chat.reschedule',
  'chat.cancel_scheduled',
  'settings.business_hours',
] as const;
export type TAuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted and from where; a null user is the system or an anonymous caller. */
export type TActor = { userId: number | null; ip: string | null };

/** A person reading or acting through a request, as the trail names them. */
export const actorOf = (reader: TReader): TActor => ({ userId: reader.id, ip: reader.ip });

/** The server itself (a webhook event, a script): no user, no address. */
export const SYSTEM_ACTOR: TActor = { userId: null, ip: null };

/**
 * Appends one event. Pass the transaction of the change it records, so the change and its
 * record commit together or not at all.
 */
export async function recordAuditEvent(
  event: { actor: TActor; action: TAuditAction; subject: string; detail?: Record<string, unknown> },
  transaction?: Transaction,
): Promise<void> {
  await db().query('INSERT INTO public.audit_events (user_id, action, subject, detail, ip) VALUES ($1, $2, $3, $4::jsonb, $5)', {
    bind: [event.actor.userId, event.action, event.subject, JSON.stringify(event.detail ?? {}), event.actor.ip],
    transaction,
  });
}
