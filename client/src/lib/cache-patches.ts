import type { InfiniteData, Query, QueryClient } from '@tanstack/react-query';
import { TIMELINE_PAGE } from './older-pages';
import { isOlderSnapshot, mapPages, placeInPages } from './paged-cache';
import { threadKeyOf, threadRefOf, type TOutputs, type trpc, type TThreadItem, type TThreadRef, type TThreadSummary } from './trpc';

// Every change the app makes to the tRPC cache by hand, in one place: live changes, a send's
// optimistic copy and its stored record, a thread marked read, the person signed in. Screens read
// the cache through their queries and never write it themselves, so each list is patched one way.

export type TUtils = ReturnType<typeof trpc.useUtils>;

/** The inbox's unfiltered list, as the inbox page and the patches here both key it. */
export const EVERY_THREAD = {} as const;

/** Messages per thread page, as the thread opens and as the reader scrolls up. */
export const THREAD_PAGE = 50;
/** Pages of a thread opened to show an old message (a search hit): the most the server gives at once. */
export const SEEK_PAGE = 500;

/**
 * The `inbox.thread` input for a conversation: page size fixed for as long as it is on screen (the
 * size is part of the cache key, and a thread opened to find an old message reads larger pages).
 */
export function threadInputOf(ref: TThreadRef, seeking: boolean) {
  return { ...ref, limit: seeking ? SEEK_PAGE : THREAD_PAGE };
}

/**
 * Cursor-paged `{items, nextCursor}` data (a thread, a timeline) with `change` applied to its loaded
 * pages' items; `change` also learns whether older pages remain unloaded. Nothing when not cached.
 */
function patchItemPages<TItem, TParam>(
  data: InfiniteData<{ items: TItem[]; nextCursor: string | null }, TParam> | undefined,
  change: (pages: TItem[][], hasOlder: boolean) => TItem[][],
): InfiniteData<{ items: TItem[]; nextCursor: string | null }, TParam> | undefined {
  if (!data) return data;
  const hasOlder = data.pages.at(-1)?.nextCursor != null;
  return mapPages(
    data,
    (page) => page.items,
    (page, items) => ({ ...page, items }),
    (pages) => change(pages, hasOlder),
  );
}

/** Changes a thread's loaded pages (each oldest first; the newest page first) wherever it is cached. */
function patchThreadItems(utils: TUtils, ref: TThreadRef, change: (pages: TThreadItem[][], hasOlder: boolean) => TThreadItem[][]): void {
  for (const seeking of [false, true])
    utils.inbox.thread.setInfiniteData(threadInputOf(ref, seeking), (data) => patchItemPages(data, change));
}

/** A stored record in its thread: where it is loaded it is replaced, else placed by its time. */
export function placeInThread(utils: TUtils, ref: TThreadRef, record: TThreadItem): void {
  patchThreadItems(utils, ref, (pages, hasOlder) => placeInPages(pages, record, 'oldest-first', hasOlder));
}

/** A message being sent, shown at the end of its thread until its stored record takes its place. */
export function addOptimisticCopy(utils: TUtils, ref: TThreadRef, copy: TThreadItem): void {
  patchThreadItems(utils, ref, (pages) => pages.map((page, i) => (i === 0 ? [...page, copy] : page)));
}

/** The pages without the optimistic copy made for send `echoId`. */
function withoutCopy(pages: TThreadItem[][], echoId: string): TThreadItem[][] {
  return pages.map((page) => (page.some((i) => isCopyOf(i, echoId)) ? page.filter((i) => !isCopyOf(i, echoId)) : page));
}

function isCopyOf(item: TThreadItem, echoId: string): boolean {
  return item.id < 0 && item.metadata.echo_id === echoId;
}

/** The send `echoId` answered: its stored record (which carries that echo id) replaces its copy. */
export function replaceOptimisticCopy(utils: TUtils, ref: TThreadRef, echoId: string, record: TThreadItem): void {
  patchThreadItems(utils, ref, (pages, hasOlder) => placeInPages(withoutCopy(pages, echoId), record, 'oldest-first', hasOlder));
}

/** The send `echoId` stored nothing (or is shown by a reload instead): its copy goes. */
export function dropOptimisticCopy(utils: TUtils, ref: TThreadRef, echoId: string): void {
  patchThreadItems(utils, ref, (pages) => withoutCopy(pages, echoId));
}

/** The inbox's unfiltered list with `change` applied to its loaded pages of conversations. */
function patchEveryThread(utils: TUtils, change: (pages: TThreadSummary[][]) => TThreadSummary[][]): void {
  utils.inbox.threads.setInfiniteData(EVERY_THREAD, (data) => {
    if (!data) return data;
    return mapPages(
      data,
      (page) => page.threads,
      (page, threads) => ({ ...page, threads }),
      change,
    );
  });
}

/** The server marked the open thread read: its messages, its line in the inbox and its summary say so. */
export function markThreadReadInCache(utils: TUtils, ref: TThreadRef, key: string): void {
  const now = new Date();
  patchThreadItems(utils, ref, (pages) =>
    pages.map((page) =>
      page.some((i) => i.direction === 'inbound' && !i.readAt)
        ? page.map((i) => (i.direction === 'inbound' && !i.readAt ? { ...i, readAt: now } : i))
        : page,
    ),
  );
  patchEveryThread(utils, (pages) =>
    pages.map((page) =>
      page.some((t) => t.key === key && t.unread !== 0) ? page.map((t) => (t.key === key ? { ...t, unread: 0 } : t)) : page,
    ),
  );
  utils.inbox.threadSummary.setData(ref, (summary) => summary && { ...summary, unread: 0 });
}

/** A conversation's summary after `item` (a new message, or a change to one) reached it. */
function patchSummary(thread: TThreadSummary, item: TThreadItem): { updated: TThreadSummary; isNew: boolean } {
  const isNew = item.id > thread.last.id;
  const isLast = isNew || item.id === thread.last.id;
  // An automatic reply moves the conversation up but the row keeps the client's last words, as the server's row does.
  const shown = isLast && !item.metadata.auto_reply;
  const updated: TThreadSummary = {
    ...thread,
    last: shown
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
      : isNew
        ? { ...thread.last, id: item.id }
        : thread.last,
    unread: thread.unread + (isNew && item.direction === 'inbound' && !item.readAt ? 1 : 0),
    lastInboundAt:
      item.direction === 'inbound' && (!thread.lastInboundAt || (item.providerTimestamp ?? item.createdAt) > thread.lastInboundAt)
        ? (item.providerTimestamp ?? item.createdAt)
        : thread.lastInboundAt,
    // The firm wrote last now: no one is waiting. A new inbound record leaves the server's word
    // (the wait it starts becomes overdue only later, as the inbox's clock sees).
    overdue: isNew && item.direction === 'outbound' && !item.metadata.auto_reply ? false : thread.overdue,
  };
  return { updated, isNew };
}

/** The loaded pages of conversations after `item`; null when its conversation is on none of them. */
function patchConversationPages(pages: TThreadSummary[][], item: TThreadItem): TThreadSummary[][] | null {
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
  return patchItemPages(data, (pages, hasOlder) => placeInPages(pages, item, 'newest-first', hasOlder));
}

/** The record as a loaded page of the thread `ref` holds it, if one does. */
function loadedInThread(utils: TUtils, ref: TThreadRef, id: number): TThreadItem | undefined {
  for (const seeking of [false, true]) {
    const found = utils.inbox.thread
      .getInfiniteData(threadInputOf(ref, seeking))
      ?.pages.flatMap((page) => page.items)
      .find((x) => x.id === id);
    if (found) return found;
  }
  return undefined;
}

/** Applies live changes to the caches in place; fetches only what it cannot patch. */
export function applyLiveItems(utils: TUtils, items: TThreadItem[]): void {
  const unloaded = new Set<string>();
  for (const item of items) {
    // Its thread holds a later snapshot already: this one changes nothing anywhere (summary, timelines).
    const loaded = loadedInThread(utils, threadRefOf(item), item.id);
    if (loaded && isOlderSnapshot(item, loaded)) continue;
    placeInThread(utils, threadRefOf(item), item);
    // A record relinked to a client leaves its number's thread (unless that holds a later snapshot: unlinked since).
    if (item.clientId !== null && item.peerPhone) {
      const leaves = (x: TThreadItem) => x.id === item.id && !isOlderSnapshot(item, x);
      patchThreadItems(utils, { phone: item.peerPhone }, (pages) =>
        pages.map((page) => (page.some(leaves) ? page.filter((x) => !leaves(x)) : page)),
      );
    }
    // An internal note is no activity of the conversation's: its line in the inbox stays as it was.
    if (item.type !== 'chat_note') {
      patchEveryThread(utils, (pages) => {
        const patched = patchConversationPages(pages, item);
        if (!patched) unloaded.add(threadKeyOf(item));
        return patched ?? pages;
      });
      utils.inbox.threadSummary.setData(threadRefOf(item), (summary) => (summary ? patchSummary(summary, item).updated : summary));
    }
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
  // A filtered list (unread, awaiting reply, done…) cannot be patched in place — a change can move a
  // conversation in or out of it: the one on screen is refetched (the filter runs on the server).
  if (items.some((i) => i.type !== 'chat_note'))
    void utils.inbox.threads.invalidate(undefined, { predicate: (query) => hasFilter(query.queryKey), refetchType: 'active' });
}

/**
 * A list or thread being read when a live change lands may be answered from before the change; that
 * answer replaces the patched copy (on a first read there was nothing yet to patch). So each such
 * read is made once more when it ends — not cancelled and restarted, which under a steady flow of
 * changes would never end — however many changes land meanwhile. react-query's refetch would not
 * do it for a first read: it joins the read under way. Older pages added as someone scrolls back
 * hold older records and are left alone.
 */
export function readAgainWhatIsInFlight(queryClient: QueryClient): void {
  const inFlight = queryClient.getQueryCache().findAll({
    fetchStatus: 'fetching',
    predicate: (query) =>
      LIVE_PATCHED.has(String((query.queryKey[0] as unknown[] | undefined)?.[0])) &&
      !(query.state.fetchMeta as { fetchMore?: unknown } | null)?.fetchMore &&
      !readAgainLater.has(query),
  });
  for (const query of inFlight) {
    const reading = query.promise;
    if (!reading) continue;
    readAgainLater.add(query);
    const readAgain = () => {
      readAgainLater.delete(query);
      // A read started since (by anything else) began after the change: it is joined, not restarted.
      void queryClient.invalidateQueries({ queryKey: query.queryKey, exact: true }, { cancelRefetch: false });
    };
    void reading.then(readAgain, readAgain);
  }
}

/** The routers whose answers live changes patch (tRPC's keys begin with the procedure's path). */
const LIVE_PATCHED = new Set(['inbox', 'timeline']);
/** Reads under way that will be made once more when they end. */
const readAgainLater = new WeakSet<Query>();

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

/** A list other than every open conversation: filtered (unread, mine, overdue…), or the done or snoozed ones. */
function hasFilter(queryKey: readonly unknown[]): boolean {
  const input = (queryKey[1] as { input?: { filter?: string; state?: string; firmNumberId?: number } } | undefined)?.input;
  // One firm number's list too: a message may be through another number, so it is read again, not patched.
  return Boolean(
    (input?.filter && input.filter !== 'all') || (input?.state && input.state !== 'open') || input?.firmNumberId !== undefined,
  );
}

/** The conversation `key` as the inbox's unfiltered list has it, when a loaded page lists it. */
export function findListedThread(utils: TUtils, key: string): TThreadSummary | undefined {
  return utils.inbox.threads
    .getInfiniteData(EVERY_THREAD)
    ?.pages.flatMap((page) => page.threads)
    .find((t) => t.key === key);
}

/** Who is signed in, as the server just said (signed in here; or null: the session ended). */
export function setSignedInUser(utils: TUtils, user: Omit<NonNullable<TOutputs['auth']['me']>, 'mustEnrol'> | null): void {
  if (user === null || 'mustEnrol' in user) return void utils.auth.me.setData(undefined, user as TOutputs['auth']['me']);
  // A sign-in's answer does not say whether the firm's policy holds the person at enrolment: auth.me does, so ask it.
  void utils.auth.me.invalidate();
}

/** The provider's template catalogue, as a refresh just returned it. */
export function setProviderTemplates(utils: TUtils, catalogue: TOutputs['chat']['providerTemplates']): void {
  utils.chat.providerTemplates.setData(undefined, catalogue);
}
