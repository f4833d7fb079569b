import { authedProcedure, router } from '../trpc/init';
import { cancelScheduledSend, editScheduledSend, rescheduleSend, type TScheduledChange } from './change-scheduled-send';
import { listScheduledSends, type TScheduledSend } from './list-scheduled-sends';
import { scheduleSend } from './schedule-send';
import { ZEditScheduledInput, ZRescheduleInput, ZScheduledIdInput, ZScheduledListInput, ZScheduleInput } from './scheduled-inputs';

// Mounted under `chat` beside the send procedures (trpc/app-router.ts merges the two routers).
export const scheduledSendsRouter = router({
  /** A text, a file (`attachmentId`, `body` its caption) or an approved template, to go at `sendAt` (README "Scheduled sends"). */
  schedule: authedProcedure
    .input(ZScheduleInput)
    .mutation(({ ctx, input }): Promise<{ id: number }> => scheduleSend(ctx.deps, ctx.reader, input)),

  /** One client's conversation's scheduled sends (`clientId`), or else the caller's own; with what recently could not go. */
  scheduled: authedProcedure
    .input(ZScheduledListInput)
    .query(({ ctx, input }): Promise<TScheduledSend[]> => listScheduledSends(ctx.reader, input ?? {})),

  /** Its author or a director, while it waits. */
  reschedule: authedProcedure
    .input(ZRescheduleInput)
    .mutation(({ ctx, input }): Promise<TScheduledChange> => rescheduleSend(ctx.reader, input.id, input.sendAt, ctx.deps.now())),

  /** The text of a waiting text, or a waiting file's caption. */
  editScheduled: authedProcedure
    .input(ZEditScheduledInput)
    .mutation(({ ctx, input }): Promise<TScheduledChange> => editScheduledSend(ctx.reader, input.id, input.body)),

  /** It never goes; one that could not go is taken off the lists. */
  cancelScheduled: authedProcedure
    .input(ZScheduledIdInput)
    .mutation(({ ctx, input }): Promise<TScheduledChange> => cancelScheduledSend(ctx.reader, input.id)),
});
