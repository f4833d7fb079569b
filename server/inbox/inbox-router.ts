import { tracked } from '@trpc/server';
import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import { watchSession } from '../auth';
import { LIVE_PATH, ZLiveInput } from '../live';
import { authedProcedure, directorProcedure, router } from '../trpc/init';
import {
  assignConversation,
  findConversation,
  listPeopleWhoMaySee,
  readWorkload,
  setConversationState,
  type TPersonRef,
  type TWorkloadRow,
} from '../ownership';
import { ZCursor } from '../trpc/cursor-input';
import { markReadAtProvider } from '../messaging';
import { AppError } from '../core/errors';
import { searchMessages, type TSearchHit } from './search-messages';
import {
  countUnread,
  getThread,
  getThreadSummary,
  linkPhoneToClient,
  listThreads,
  markThreadRead,
  phoneDigitsOf,
  CONVERSATION_STATES,
  THREAD_FILTERS,
  unlinkPhoneFromClient,
  type TConversationState,
  type TThreadItem,
  type TThreadSummary,
} from './inbox';

export const ZThreadRef = z.union([z.object({ clientId: ZRecordId }), z.object({ phone: z.string().trim().min(1).max(40) })]);

/** An opaque page position from a previous answer. */

const ZLinkInput = z.object({ phone: z.string().trim().min(1).max(40), clientId: ZRecordId });
/** `confirm`: a person has seen that another client has this number and links it anyway. */
const ZLinkWithConfirm = ZLinkInput.extend({ confirm: z.boolean().optional() });

export const inboxRouter = router({
  /** A page of conversations, newest activity first (server/decisions/0011-keyset-pagination.md); `cursor` = a previous `nextCursor`. */
  threads: authedProcedure
    .input(
      z
        .object({
          limit: z.number().int().min(1).max(500).optional(),
          filter: z.enum(THREAD_FILTERS).optional(),
          /** Which conversations: open (the default), done, or snoozed (README "Ownership"). */
          state: z.enum(CONVERSATION_STATES).optional(),
          cursor: ZCursor.optional(),
        })
        .optional(),
    )
    .query(({ ctx, input }): Promise<{ threads: TThreadSummary[]; nextCursor: string | null }> =>
      listThreads(ctx.reader, { ...input, replyTargetMinutes: ctx.deps.config.replyTargetMinutes }),
    ),

  /** The summary of one conversation (name, match, candidates to link, unread); null before its first message. */
  threadSummary: authedProcedure
    .input(ZThreadRef)
    .query(({ ctx, input }): Promise<TThreadSummary | null> => getThreadSummary(ctx.reader, input, ctx.deps.config.replyTargetMinutes)),

  /** Conversations with unread messages and the messages unread in them, over the whole inbox. */
  unreadCount: authedProcedure
    .output(z.object({ conversations: z.number(), messages: z.number() }))
    .query(({ ctx }) => countUnread(ctx.reader)),

  /** Messages by their words across every conversation (PostgreSQL full-text search), best match first. */
  search: authedProcedure
    .input(
      z.object({
        q: z.string().trim().min(1, 'Type a word to search for').max(200),
        limit: z.number().int().min(1).max(100).optional(),
        cursor: ZCursor.optional(),
      }),
    )
    .query(({ ctx, input }): Promise<{ items: TSearchHit[]; nextCursor: string | null }> =>
      searchMessages(ctx.reader, { ...input, language: ctx.deps.config.searchLanguage }),
    ),

  /** A page of a thread (server/decisions/0011-keyset-pagination.md): the newest, or the one older than `cursor` (a previous `nextCursor`). */
  thread: authedProcedure
    .input(z.intersection(ZThreadRef, z.object({ cursor: ZCursor.optional(), limit: z.number().int().min(1).max(500).optional() })))
    .query(({ ctx, input }): Promise<{ items: TThreadItem[]; nextCursor: string | null }> => {
      const { cursor, limit, ...ref } = input;
      return getThread(ctx.reader, ref, { cursor, limit });
    }),

  markRead: authedProcedure
    .input(ZThreadRef)
    .output(z.object({ updated: z.number() }))
    .mutation(async ({ ctx, input }) => {
      const updated = await markThreadRead(ctx.reader, input, ctx.deps.now());
      // README "Read receipts": the assignee's opening shows the client blue ticks. Never at the cost
      // of the reader's own read, which is done: a failure here is logged, not answered.
      if (ctx.deps.config.readReceipts === 'assignee') {
        const thread = 'clientId' in input ? { clientId: input.clientId } : { peerPhone: phoneDigitsOf(input.phone) };
        await markReadAtProvider(ctx.deps, ctx.reader, thread, ctx.deps.now()).catch((error: unknown) =>
          ctx.deps.logger.warn({ error: (error as Error).name }, 'messages were not marked read on the client’s phone'),
        );
      }
      return { updated };
    }),

  /** Files an unlinked number's records under a client and adds the number to it: a person's decision, never a guess. */
  link: authedProcedure
    .input(ZLinkWithConfirm)
    .output(z.object({ linked: z.number() }))
    .mutation(async ({ ctx, input }) => {
      const ids = await linkPhoneToClient(ctx.reader, input);
      ctx.deps.events.publishQuietly(ids);
      return { linked: ids.length };
    }),

  /** Undoes a link: the number leaves the client and its messages go back to unlinked. */
  unlink: authedProcedure
    .input(ZLinkInput)
    .output(z.object({ unlinked: z.number() }))
    .mutation(async ({ ctx, input }) => {
      const ids = await unlinkPhoneFromClient(ctx.reader, input);
      ctx.deps.events.publishQuietly(ids);
      return { unlinked: ids.length };
    }),

  /** Gives the conversation to a person who may see it (null: to nobody); both people are told. */
  assign: authedProcedure
    .input(z.intersection(ZThreadRef, z.object({ userId: ZRecordId.nullable() })))
    .mutation(({ ctx, input }): Promise<{ assignee: TPersonRef | null }> => {
      const { userId, ...ref } = input;
      return assignConversation(ctx.reader, ref, userId);
    }),

  /** Opens, finishes or snoozes a conversation; a snoozed one opens again by itself at `snoozeUntil`. */
  setState: authedProcedure
    .input(z.intersection(ZThreadRef, z.object({ state: z.enum(CONVERSATION_STATES), snoozeUntil: z.coerce.date().optional() })))
    .mutation(({ ctx, input }): Promise<{ state: TConversationState; snoozedUntil: Date | null }> => {
      const { state, snoozeUntil, ...ref } = input;
      return setConversationState(ctx.reader, ref, { state, snoozeUntil }, ctx.deps.now());
    }),

  /** The active people who may see this conversation: whom it may be assigned to, and who may be mentioned in it. */
  people: authedProcedure
    .input(ZThreadRef)
    .query(async ({ ctx, input }): Promise<TPersonRef[]> => listPeopleWhoMaySee(await findConversation(ctx.reader, input))),

  /** Per person: open conversations, those awaiting the firm's reply and the longest wait (directors). */
  workload: directorProcedure.query(async ({ ctx }): Promise<{ people: TWorkloadRow[]; replyTargetMinutes: number }> => ({
    people: await readWorkload(ctx.reader, ctx.deps.config.replyTargetMinutes),
    replyTargetMinutes: ctx.deps.config.replyTargetMinutes,
  })),

  /** Minutes a client may wait for a reply before their conversation is overdue (REPLY_TARGET_MINUTES). */
  replyTarget: authedProcedure.query(({ ctx }): { minutes: number } => ({ minutes: ctx.deps.config.replyTargetMinutes })),

  /**
   * Live changes (SSE) to chat records the user may see (README "Ethical walls"), as thread items, each with an event id. Over HTTP
   * the fan-out serves every signed-in stream (`server/live/live-stream-route.ts`) with these same
   * events; this body serves callers inside the process. `lastEventId` (a reconnect): the first
   * event is a resync.
   */
  onChange: authedProcedure.input(ZLiveInput).subscription(async function* ({ ctx, input, signal }) {
    // Only another spelling of the path (inbox%2EonChange) gets here over HTTP: it would be a stream
    // without the fan-out's limits, counts and shutdown.
    if (ctx.viaHttp) throw new AppError('INVALID_INPUT', `Open live updates at GET /trpc${LIVE_PATH}.`);
    // The stream ends with the session it was opened with (sign-out anywhere, or expiry).
    const session = ctx.sessionToken ? watchSession(ctx.sessionToken, ctx.deps.config.sessionSecret) : null;
    try {
      const until = [signal, session?.signal].filter((s): s is AbortSignal => s !== undefined);
      const changes = ctx.deps.liveStreams.changesFor(
        ctx.user,
        until.length ? AbortSignal.any(until) : undefined,
        Boolean(input?.lastEventId),
      );
      for await (const { id, change } of changes) yield tracked(String(id), change);
    } finally {
      session?.stop();
    }
  }),
});
