import { z } from 'zod';
import type { TConfig } from '../core/config';
import { CONVERSATION_STATES, ZThreadRef } from '../conversations';
import { authedProcedure, directorProcedure, router } from '../trpc/init';
import { ZPersonRef } from '../trpc/person-ref';
import { ZRecordId } from '../trpc/record-id';
import { assignConversation } from './assign-conversation';
import { findConversation, listPeopleWhoMaySee } from './conversation-ref';
import { setConversationState } from './set-conversation-state';
import { readWorkload } from './workload';

/** Per person (TWorkloadRow, workload.ts). */
const ZWorkloadRow = z.object({
  user: ZPersonRef,
  open: z.number(),
  awaitingReply: z.number(),
  oldestAwaitingAt: z.date().nullable(),
  overdue: z.number(),
});

/** The reply target (REPLY_TARGET_MINUTES) and the clock: what ownership's procedures need beyond the request. */
export type TOwnershipRouterDeps = { config: Pick<TConfig, 'replyTargetMinutes'>; now: () => Date };

/** Who handles a conversation and its state (server/ownership/README.md "Ownership"): mounted under `inbox` beside the inbox's own procedures. */
export function createOwnershipRouter(deps: TOwnershipRouterDeps) {
  return router({
    /** Gives the conversation to a person who may see it (null: to nobody); both people are told. */
    assign: authedProcedure
      .input(z.intersection(ZThreadRef, z.object({ userId: ZRecordId.nullable() })))
      .output(z.object({ assignee: ZPersonRef.nullable() }))
      .mutation(({ ctx, input }) => {
        const { userId, ...ref } = input;
        return assignConversation(ctx.reader, ref, userId);
      }),

    /** Opens, finishes or snoozes a conversation; a snoozed one opens again by itself at `snoozeUntil`. */
    setState: authedProcedure
      .input(z.intersection(ZThreadRef, z.object({ state: z.enum(CONVERSATION_STATES), snoozeUntil: z.coerce.date().optional() })))
      .output(z.object({ state: z.enum(CONVERSATION_STATES), snoozedUntil: z.date().nullable() }))
      .mutation(({ ctx, input }) => {
        const { state, snoozeUntil, ...ref } = input;
        return setConversationState(ctx.reader, ref, { state, snoozeUntil }, deps.now());
      }),

    /** The active people who may see this conversation: whom it may be assigned to, and who may be mentioned in it. */
    people: authedProcedure
      .input(ZThreadRef)
      .output(z.array(ZPersonRef))
      .query(async ({ ctx, input }) => listPeopleWhoMaySee(await findConversation(ctx.reader, input))),

    /** Per person: open conversations, those awaiting the firm's reply and the longest wait (directors). */
    workload: directorProcedure
      .output(z.object({ people: z.array(ZWorkloadRow), replyTargetMinutes: z.number() }))
      .query(async ({ ctx }) => ({
        people: await readWorkload(ctx.reader, deps.config.replyTargetMinutes),
        replyTargetMinutes: deps.config.replyTargetMinutes,
      })),

    /** Minutes a client may wait for a reply before their conversation is overdue (REPLY_TARGET_MINUTES). */
    replyTarget: authedProcedure.output(z.object({ minutes: z.number() })).query(() => ({ minutes: deps.config.replyTargetMinutes })),
  });
}
