import { z } from 'zod';
import type { TConfig } from '../core/config';
import { AppError } from '../core/errors';
import { authedProcedure, router } from '../trpc/init';
import { ZPersonRef } from '../trpc/person-ref';
import { cancelScheduledSend, editScheduledSend, rescheduleSend } from './change-scheduled-send';
import { listScheduledSends, type TScheduledSend } from './list-scheduled-sends';
import { scheduleSend } from './schedule-send';
import {
  ZEditScheduledInput,
  ZRescheduleInput,
  ZScheduledIdInput,
  ZScheduledListInput,
  ZScheduledTemplate,
  ZScheduleInput,
} from './scheduled-inputs';

/** TScheduledState (change-scheduled-send.ts). */
const ZScheduledState = z.enum(['scheduled', 'sent', 'not_sent', 'cancelled']);
const ZScheduledChange = z.object({ id: z.number(), state: ZScheduledState, sendAt: z.date() });
/** One scheduled send as its lists show it (TScheduledSend, list-scheduled-sends.ts). */
const ZScheduledSend = z.object({
  id: z.number(),
  kind: z.enum(['text', 'template', 'file']),
  body: z.string().nullable(),
  template: ZScheduledTemplate.nullable(),
  attachmentId: z.number().nullable(),
  fileName: z.string().nullable(),
  sendAt: z.date(),
  state: ZScheduledState,
  unlessReplied: z.boolean(),
  reason: z.string().nullable(),
  author: ZPersonRef,
  clientId: z.number(),
  clientName: z.string(),
  caseId: z.number().nullable(),
  to: z.string(),
  communicationId: z.number().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
} satisfies Record<keyof TScheduledSend, z.ZodType>);

// Mounted under `chat` beside the send procedures (app/app-router.ts merges the two routers).
export function createScheduledSendsRouter(deps: { config: Pick<TConfig, 'defaultCountry'>; now: () => Date }) {
  return router({
    /** A text, a file (`attachmentId`, `body` its caption) or an approved template, to go at `sendAt` (server/messaging/README.md "Scheduled sends"). */
    schedule: authedProcedure
      .input(ZScheduleInput)
      .output(z.object({ id: z.number() }))
      .mutation(({ ctx, input }) => scheduleSend(deps, ctx.reader, input)),

    /**
     * One client's conversation's scheduled sends (`clientId`), or else the caller's own, or with
     * `everyone` every person's (directors: server/decisions/0013-roles-enforced-by-the-server.md); with what recently could not go.
     */
    scheduled: authedProcedure
      .input(ZScheduledListInput)
      .output(z.array(ZScheduledSend))
      .query(({ ctx, input }) => {
        if (input?.everyone && ctx.user.role !== 'director')
          throw new AppError('FORBIDDEN', 'Only directors can see everyone’s scheduled messages.');
        return listScheduledSends(ctx.reader, input ?? {});
      }),

    /** Its author or a director, while it waits. */
    reschedule: authedProcedure
      .input(ZRescheduleInput)
      .output(ZScheduledChange)
      .mutation(({ ctx, input }) => rescheduleSend(ctx.reader, input.id, input.sendAt, deps.now())),

    /** The text of a waiting text, or a waiting file's caption. */
    editScheduled: authedProcedure
      .input(ZEditScheduledInput)
      .output(ZScheduledChange)
      .mutation(({ ctx, input }) => editScheduledSend(ctx.reader, input.id, input.body)),

    /** It never goes; one that could not go is taken off the lists. */
    cancelScheduled: authedProcedure
      .input(ZScheduledIdInput)
      .output(ZScheduledChange)
      .mutation(({ ctx, input }) => cancelScheduledSend(ctx.reader, input.id)),
  });
}
