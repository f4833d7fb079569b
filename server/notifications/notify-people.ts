import type { Transaction } from 'sequelize';
import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import { announce, notifyPayload } from '../events';

/** `scheduled_not_sent`: a scheduled send of the person's could not go at its time (server/messaging/README.md "Scheduled sends"). */
export const NOTIFICATION_KINDS = ['assigned', 'mention', 'message', 'overdue', 'scheduled_not_sent'] as const;
export type TNotificationKind = (typeof NOTIFICATION_KINDS)[number];

export type TNewNotification = {
  userId: number;
  kind: TNotificationKind;
  threadKey: string;
  communicationId?: number | null;
  actorId?: number | null;
  /** For 'assigned': who has the conversation now (null: nobody). */
  assigneeId?: number | null;
  /** For 'scheduled_not_sent': the scheduled send (its reason is on it). */
  scheduledSendId?: number | null;
};

/**
 * Stores notifications in the caller's transaction and tells the people's live streams when it
 * commits (a NOTIFY is delivered at commit, and not at all on rollback). Nobody is told of their
 * own action.
 */
export async function notifyPeople(rows: TNewNotification[], transaction: Transaction): Promise<void> {
  const told = rows.filter((row) => row.userId !== row.actorId);
  if (told.length === 0) return;
  const inserted = await db().query<{ user_id: number }>(
    `INSERT INTO notifications (user_id, kind, thread_key, communication_id, actor_id, assignee_id, scheduled_send_id)
     SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::bigint[])
     RETURNING user_id`,
    {
      bind: [
        told.map((r) => r.userId),
        told.map((r) => r.kind),
        told.map((r) => r.threadKey),
        told.map((r) => r.communicationId ?? null),
        told.map((r) => r.actorId ?? null),
        told.map((r) => r.assigneeId ?? null),
        told.map((r) => r.scheduledSendId ?? null),
      ],
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  await announceNotifications([...new Set(inserted.map((r) => r.user_id))], transaction);
}

/** Tells these people's open pages to read their notifications again (when `transaction` commits). */
export async function announceNotifications(userIds: number[], transaction?: Transaction): Promise<void> {
  if (userIds.length) await announce(notifyPayload(userIds), transaction);
}
