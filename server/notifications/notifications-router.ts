import { z } from 'zod';
import { authedProcedure, router } from '../trpc/init';
import { ZCursor } from '../trpc/cursor-input';
import { ZRecordId } from '../trpc/record-id';
import { announceNotifications } from './notify-people';
import { countUnreadNotifications, listNotifications, markNotificationsRead, type TNotification } from './notifications';

export const notificationsRouter = router({
  /** The signed-in person's notifications, newest first (server/decisions/0011-keyset-pagination.md). */
  list: authedProcedure
    .input(z.object({ cursor: ZCursor.optional(), limit: z.number().int().min(1).max(100).optional() }).optional())
    .query(({ ctx, input }): Promise<{ items: TNotification[]; nextCursor: string | null }> => listNotifications(ctx.reader, input)),

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
