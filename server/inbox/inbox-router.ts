import { z } from 'zod';
import { ZPhoneInput } from '../../shared/phone-schema';
import type { TConfig } from '../core/config';
import type { TLogger } from '../core/logger';
import { CONVERSATION_STATES, phoneDigitsOf, ZThreadRef } from '../conversations';
import { markReadAtProvider, type TSendDeps } from '../messaging';
import { ZCursor } from '../trpc/cursor-input';
import { authedProcedure, router } from '../trpc/init';
import { ZRecordId } from '../trpc/record-id';
import { countUnread } from './count-unread';
import { ZSearchHit, ZThreadItem, ZThreadSummary } from './inbox-outputs';
import { linkPhoneToClient, unlinkPhoneFromClient } from './link-number';
import { getThreadSummary, listThreads } from './list-threads';
import { markThreadRead } from './mark-thread-read';
import { searchMessages } from './search-messages';
import { getThread } from './thread-items';
import { THREAD_FILTERS } from './threads-sql';

const ZLinkInput = z.object({ phone: ZPhoneInput, clientId: ZRecordId });
/** `confirm`: a person has seen that another client has this number and links it anyway. */
const ZLinkWithConfirm = ZLinkInput.extend({ confirm: z.boolean().optional() });

/**
 * What the inbox's procedures need beyond the request: its settings, the change feed (a link moves
 * records), the provider and a logger (read receipts at the provider), the clock.
 */
export type TInboxRouterDeps = Pick<TSendDeps, 'events' | 'provider' | 'providerFor'> & {
  config: Pick<TConfig, 'replyTargetMinutes' | 'searchLanguage' | 'readReceipts'>;
  logger: Pick<TLogger, 'warn'>;
  now: () => Date;
};

/** The inbox's own procedures; ownership's and the live subscription are mounted beside them under `inbox` (app/app-router.ts). */
export function createInboxRouter(deps: TInboxRouterDeps) {
  return router({
    /** A page of conversations, newest activity first (server/decisions/0011-keyset-pagination.md); `cursor` = a previous `nextCursor`. */
    threads: authedProcedure
      .input(
        z
          .object({
            limit: z.number().int().min(1).max(500).optional(),
            filter: z.enum(THREAD_FILTERS).optional(),
            /** Which conversations: open (the default), done, or snoozed (server/ownership/README.md "Ownership"). */
            state: z.enum(CONVERSATION_STATES).optional(),
            cursor: ZCursor.optional(),
            /** Only conversations with a message through this firm number (server/numbers/README.md "Several numbers"). */
            firmNumberId: ZRecordId.optional(),
          })
          .optional(),
      )
      .output(z.object({ threads: z.array(ZThreadSummary), nextCursor: z.string().nullable() }))
      .query(({ ctx, input }) => listThreads(ctx.reader, { ...input, replyTargetMinutes: deps.config.replyTargetMinutes })),

    /** The summary of one conversation (name, match, candidates to link, unread); null before its first message. */
    threadSummary: authedProcedure
      .input(ZThreadRef)
      .output(ZThreadSummary.nullable())
      .query(({ ctx, input }) => getThreadSummary(ctx.reader, input, deps.config.replyTargetMinutes)),

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
      .output(z.object({ items: z.array(ZSearchHit), nextCursor: z.string().nullable() }))
      .query(({ ctx, input }) => searchMessages(ctx.reader, { ...input, language: deps.config.searchLanguage })),

    /** A page of a thread (server/decisions/0011-keyset-pagination.md): the newest, or the one older than `cursor` (a previous `nextCursor`). */
    thread: authedProcedure
      .input(z.intersection(ZThreadRef, z.object({ cursor: ZCursor.optional(), limit: z.number().int().min(1).max(500).optional() })))
      .output(z.object({ items: z.array(ZThreadItem), nextCursor: z.string().nullable() }))
      .query(({ ctx, input }) => {
        const { cursor, limit, ...ref } = input;
        return getThread(ctx.reader, ref, { cursor, limit });
      }),

    markRead: authedProcedure
      .input(ZThreadRef)
      .output(z.object({ updated: z.number() }))
      .mutation(async ({ ctx, input }) => {
        const updated = await markThreadRead(ctx.reader, input, deps.now());
        // server/messaging/README.md "Read receipts": the firm's policy decides whose opening shows the client blue ticks.
        // Never at the cost of the reader's own read, which is done: a failure here is logged, not answered.
        const thread = 'clientId' in input ? { clientId: input.clientId } : { peerPhone: phoneDigitsOf(input.phone) };
        await markReadAtProvider(deps, ctx.reader, thread, deps.now()).catch((error: unknown) =>
          deps.logger.warn({ error: (error as Error).name }, 'messages were not marked read on the client’s phone'),
        );
        return { updated };
      }),

    /** Files an unlinked number's records under a client and adds the number to it: a person's decision, never a guess. */
    link: authedProcedure
      .input(ZLinkWithConfirm)
      .output(z.object({ linked: z.number() }))
      .mutation(async ({ ctx, input }) => {
        const ids = await linkPhoneToClient(ctx.reader, input);
        deps.events.publishQuietly(ids);
        return { linked: ids.length };
      }),

    /** Undoes a link: the number leaves the client and its messages go back to unlinked. */
    unlink: authedProcedure
      .input(ZLinkInput)
      .output(z.object({ unlinked: z.number() }))
      .mutation(async ({ ctx, input }) => {
        const ids = await unlinkPhoneFromClient(ctx.reader, input);
        deps.events.publishQuietly(ids);
        return { unlinked: ids.length };
      }),
  });
}
