import { useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { formatPhone } from './format';
import { alertNewMessages } from './new-message-alerts';
import { checkStillSignedIn } from './session-end';
import { TIMELINE_PAGE } from './older-pages';
import { mapPages, placeInPages } from './paged-cache';
import { updateThreadPages } from './thread-pages';
import { trpc, threadKeyOf, threadRefOf, type TThreadItem, type TThreadSummary } from './trpc';

type TUtils = ReturnType<typeof trpc.useUtils>;

/** The inbox's unfiltered list, as the inbox page and the live patches both key it. */
export const EVERY_THREAD = {} as const;

/** A conversation's summary after `item` (a new message, or a change to one) reached it. */
function patchSummary(thread: TThreadSummary, item: TThreadItem): { updated: TThreadSummary; isNew: boolean } {
  const isNew = item.id > thread.last.id;
  const isLast = isNew || item.id === thread.last.id;
  const updated: TThreadSummary = {
    ...thread,
    last: isLast
      ? {
          id: item.id,
          body: item.body,
          direction: item.direction,
          status: item.status,
          outcome: item.metadata.outcome ?? null,
          createdAt: item.createdAt,
          kind: item.metadata.kind ?? 'text',
          fileName: item.attachments[0]?.fileName ?? null,
        }
      : thread.last,
    unread: thread.unread + (isNew && item.direction === 'inbound' && !item.readAt ? 1 : 0),
    lastInboundAt:
      item.direction === 'inbound' && (!thread.lastInboundAt || (item.providerTimestamp ?? item.createdAt) > thread.lastInboundAt)
        ? (item.providerTimestamp ?? item.createdAt)
        : thread.lastInboundAt,
  };
  return { updated, isNew };
}

/** The loaded pages of conversations after `item`; null when its conversation is on none of them. */
function patchThreadPages(pages: TThreadSummary[][], item: TThreadItem): TThreadSummary[][] | null {
  const key = threadKeyOf(item);
  const p = pages.findIndex((page) => page.some((t) => t.key === key));
  if (p < 0) return null;
  const { updated, isNew } = patchSummary(
    pages[p]!.find((t) => t.key === key)!,
    item,
  );
  if (!isNew) return pages.map((page) => page.map((t) => (t.key === key ? updated : t)));
  // New activity: the conversation moves to the top of the first page.
  return pages.map((page, i) => {
    const rest = page.filter((t) => t.key !== key);
    return i === 0 ? [updated, ...rest] : rest;
  });
}

/** A timeline's loaded pages (newest first throughout) with `item` in its place. */
function placeInTimeline<TItem extends { id: number; createdAt: Date }, TParam>(
  data: InfiniteData<{ items: TItem[]; nextCursor: string | null }, TParam> | undefined,
  item: TItem,
): InfiniteData<{ items: TItem[]; nextCursor: string | null }, TParam> | undefined {
  if (!data) return data;
  const hasOlder = data.pages.at(-1)?.nextCursor != null;
  return mapPages(
    data,
    (page) => page.items,
    (page, items) => ({ ...page, items }),
    (pages) => placeInPages(pages, item, 'newest-first', hasOlder),
  );
}

// The latest version of records changed lately, for screens that follow one record outside any
// list (Settings' test send): its receipt may come before the screen has the record's id.
const LATEST_KEPT = 200;
const latestById = new Map<number, TThreadItem>();
const recordListeners = new Set<() => void>();

function noteLatest(items: TThreadItem[]): void {
  for (const item of items) {
    latestById.delete(item.id);
    latestById.set(item.id, item);
  }
  while (latestById.size > LATEST_KEPT) latestById.delete(latestById.keys().next().value!);
  for (const listener of recordListeners) listener();
}

/** The newest version of record `id` that a live update brought, or undefined. */
export function useLiveRecord(id: number | null): TThreadItem | undefined {
  return useSyncExternalStore(
    (listener) => {
      recordListeners.add(listener);
      return () => recordListeners.delete(listener);
    },
    () => (id === null ? undefined : latestById.get(id)),
  );
}

/** Applies live changes to the React Query caches in place; fetches only what it cannot patch. */
export function applyLiveItems(utils: TUtils, queryClient: QueryClient, items: TThreadItem[]): void {
  noteLatest(items);
  const unloaded = new Set<string>();
  for (const item of items) {
    updateThreadPages(queryClient, threadRefOf(item), (pages, hasOlder) => placeInPages(pages, item, 'oldest-first', hasOlder));
    // A record relinked to a client leaves its number's thread.
    if (item.clientId !== null && item.peerPhone) {
      updateThreadPages(queryClient, { phone: item.peerPhone }, (pages) =>
        pages.map((page) => (page.some((x) => x.id === item.id) ? page.filter((x) => x.id !== item.id) : page)),
      );
    }
    utils.inbox.threads.setInfiniteData(EVERY_THREAD, (data) => {
      if (!data) return data;
      return mapPages(
        data,
        (page) => page.threads,
        (page, threads) => ({ ...page, threads }),
        (pages) => {
          const patched = patchThreadPages(pages, item);
          if (!patched) unloaded.add(threadKeyOf(item));
          return patched ?? pages;
        },
      );
    });
    utils.inbox.threadSummary.setData(threadRefOf(item), (summary) => (summary ? patchSummary(summary, item).updated : summary));
    if (item.clientId !== null)
      utils.timeline.client.setInfiniteData({ clientId: item.clientId, limit: TIMELINE_PAGE }, (data) => placeInTimeline(data, item));
    if (item.caseId !== null)
      utils.timeline.case.setInfiniteData({ caseId: item.caseId, limit: TIMELINE_PAGE }, (data) => placeInTimeline(data, item));
    // A file arrived, or finished (or failed) downloading: the Documents lists it is on change.
    if (item.attachments.length) {
      if (item.clientId !== null) void utils.timeline.documents.invalidate({ clientId: item.clientId });
      if (item.caseId !== null) void utils.timeline.documents.invalidate({ caseId: item.caseId });
    }
  }
  if (unloaded.size) void bringToTop(utils, unloaded);
  if (items.some((i) => i.direction === 'inbound' && !i.readAt)) void utils.inbox.unreadCount.invalidate();
  // A filtered list (unread, awaiting reply…) cannot be patched in place — a change can move a
  // conversation in or out of it: the one on screen is refetched (the filter runs on the server).
  if (items.length)
    void utils.inbox.threads.invalidate(undefined, { predicate: (query) => hasFilter(query.queryKey), refetchType: 'active' });
}

/**
 * Conversations the loaded pages do not hold got a message: their summaries come from a fresh first
 * page and go on top, without reloading (or losing the place in) the pages already scrolled through.
 */
async function bringToTop(utils: TUtils, keys: Set<string>): Promise<void> {
  if (!utils.inbox.threads.getInfiniteData(EVERY_THREAD)) return;
  const fresh = await utils.client.inbox.threads.query({ limit: 50 });
  const found = fresh.threads.filter((t) => keys.has(t.key));
  if (found.length < keys.size) {
    void utils.inbox.threads.invalidate(EVERY_THREAD); // moved on again already: read the pages afresh
    return;
  }
  utils.inbox.threads.setInfiniteData(EVERY_THREAD, (data) => {
    if (!data?.pages.length) return data;
    const loaded = new Set(data.pages.flatMap((page) => page.threads.map((t) => t.key)));
    const missing = found.filter((t) => !loaded.has(t.key));
    if (!missing.length) return data;
    return { ...data, pages: data.pages.map((page, i) => (i === 0 ? { ...page, threads: [...missing, ...page.threads] } : page)) };
  });
}

function hasFilter(queryKey: readonly unknown[]): boolean {
  const input = (queryKey[1] as { input?: { filter?: string } } | undefined)?.input;
  return Boolean(input?.filter && input.filter !== 'all');
}

/** A new message's sender as the inbox lists them: the client, the profile name, else the number. */
function senderNameOf(utils: TUtils, item: TThreadItem): string {
  const key = threadKeyOf(item);
  const listed = utils.inbox.threads
    .getInfiniteData(EVERY_THREAD)
    ?.pages.flatMap((page) => page.threads)
    .find((t) => t.key === key);
  return listed?.clientName ?? item.metadata.contact_name ?? (item.peerPhone ? formatPhone(item.peerPhone) : 'a contact');
}

/** The first wait before a failed live stream is opened again; it doubles up to the last. */
const RESTART_FIRST_MS = 2_000;
const RESTART_MAX_MS = 30_000;

/**
 * One live subscription for the signed-in app. The browser reconnects a stream that merely dropped
 * by itself (and the server then says to resync); a stream that failed outright (an error status, a
 * refusal) or ended while its person is still signed in is opened again here, after a wait that
 * grows, and what was missed meanwhile is read again.
 */
export function useLiveUpdates(): void {
  const utils = trpc.useUtils();
  const queryClient = useQueryClient();
  const restart = useRef<{ timer?: ReturnType<typeof setTimeout>; waitMs: number }>({ waitMs: RESTART_FIRST_MS });
  const resync = () => {
    void utils.inbox.invalidate();
    void utils.timeline.invalidate();
  };
  const live = trpc.inbox.onChange.useSubscription(undefined, {
    // Each change comes with its event id; a reconnecting stream starts with a resync (it missed what came meanwhile).
    onData: ({ data: change }) => {
      restart.current.waitMs = RESTART_FIRST_MS;
      if ('items' in change) {
        applyLiveItems(utils, queryClient, change.items);
        alertNewMessages(change.items, (item) => senderNameOf(utils, item));
      } else {
        resync();
      }
    },
    onError: () => restartLater(),
    // The server ends the stream when its session ends (sign-out elsewhere, deactivation).
    onComplete: () => checkStillSignedIn(utils, restartLater),
  });
  function restartLater(): void {
    const state = restart.current;
    clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      live.reset();
      resync();
    }, state.waitMs);
    state.waitMs = Math.min(state.waitMs * 2, RESTART_MAX_MS);
  }
  useEffect(() => () => clearTimeout(restart.current.timer), []);
}
