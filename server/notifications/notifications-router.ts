import { z } from 'zod';
import { authedProcedure, router } from '../trpc/init';
import { ZCursor } from '../trpc/cursor-input';
import { ZPersonRef } from '../trpc/person-ref';
import { ZRecordId } from '../trpc/record-id';
import { announceNotifications, NOTIFICATION_KINDS } from './notify-people';
import { countUnreadNotifications, listNotifications, markNotificationsRead, type TNotification } from './notifications';

/** One notification (TNotification, notifications.ts). */
const ZNotification = z.object({
  id: z.number(),
  kind: z.enum(NOTIFICATION_KINDS),
  at: z.date(),
  readAt: z.date().nullable(),
  threadRef: z.union([z.object({ clientId: z.number() }), z.object({ phone: z.string() })]),
  threadName: z.string(),
  communicationId: z.number().nullable(),
  actor: ZPersonRef.nullable(),
  assignee: ZPersonRef.nullable(),
  scheduledSend: z.object({ id: z.number(), reason: z.string().nullable(), sendAt: z.date() }).nullable(),
  noteWords: z.string().nullable(),
} satisfies Record<keyof TNotification, z.ZodType>);

export const notificationsRouter = router({
  /** The signed-in person's notifications, newest first (server/decisions/0011-keyset-pagination.md). */
  list: authedProcedure
    .input(z.object({ cursor: ZCursor.optional(), limit: z.number().int().min(1).max(100).optional() }).optional())
    .output(z.object({ items: z.array(ZNotification), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => listNotifications(ctx.reader, input)),

  unreadCount: authedProcedure
    .output(z.object({ count: z.number() }))
    .query(async ({ ctx }) => ({ count: await countUnreadNotifications(ctx.reader) })),

  /** Marks some (`ids`) or all of the person's notifications read; their other pages hear of it live. */
  markRead: authedProcedure
    .input(z.union([z.object({ ids: z.array(ZRecordId).min(1).max(500) }), z.object({ all: z.literal(true) })]))
    .output(z.object({ updated: z.number() }))
    .mutation(async ({ ctx, input }) => {
      const updated = await markNotificationsRead(ctx.reader, input);
      if (updated > 0) await announceNotifications([ctx.reader.id]);
      return { updated };
    }),
});
