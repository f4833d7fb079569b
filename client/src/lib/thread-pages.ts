import { useLayoutEffect, useRef } from 'react';
import { useInfiniteQuery, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { getQueryKey } from '@trpc/react-query';
import { mapPages } from './paged-cache';
import { trpc, type TThreadItem, type TThreadRef } from './trpc';

// A thread's pages (DESIGN "Pagination": `before`/`nextBefore`), newest page first, each oldest
// first. tRPC's own infinite hook names the page parameter `cursor`, so the query is React Query's,
// under the key tRPC would give it: `utils.inbox.invalidate()` and friends reach it as any other.

export const THREAD_PAGE = 50;
/** Pages while looking for an old message (a search hit): the most the server gives at once. */
const SEEK_PAGE = 500;

export type TThreadPage = { items: TThreadItem[]; nextBefore: string | null };
export type TThreadPages = InfiniteData<TThreadPage, unknown>;

export function threadPagesKey(ref: TThreadRef) {
  return getQueryKey(trpc.inbox.thread, ref, 'infinite');
}

/**
 * The thread's newest page, and earlier ones as `fetchNextPage` asks for them ("load earlier");
 * while `seeking` (an old message to reach), earlier pages come ten times larger.
 */
export function useThreadPages(ref: TThreadRef, seeking: boolean) {
  const utils = trpc.useUtils();
  // Read when a page is fetched (after this render is on screen), not part of the query's key.
  const seekingNow = useRef(seeking);
  useLayoutEffect(() => {
    seekingNow.current = seeking;
  });
  return useInfiniteQuery({
    queryKey: threadPagesKey(ref),
    queryFn: ({ pageParam, signal }) =>
      utils.client.inbox.thread.query(
        { ...ref, before: pageParam, limit: pageParam && seekingNow.current ? SEEK_PAGE : THREAD_PAGE },
        { signal },
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextBefore ?? undefined,
  });
}

/**
 * Changes a loaded thread's pages in the cache (nothing when it is not loaded). `change` gets every
 * page's items and whether older pages remain unloaded.
 */
export function updateThreadPages(
  queryClient: QueryClient,
  ref: TThreadRef,
  change: (pages: TThreadItem[][], hasOlder: boolean) => TThreadItem[][],
): void {
  queryClient.setQueryData<TThreadPages>(threadPagesKey(ref), (data) => {
    if (!data) return data;
    const hasOlder = data.pages[data.pages.length - 1]?.nextBefore != null;
    return mapPages(
      data,
      (page) => page.items,
      (page, items) => ({ ...page, items }),
      (pages) => change(pages, hasOlder),
    );
  });
}

/** Every loaded item of the thread, oldest first. */
export function itemsOf(data: TThreadPages | undefined): TThreadItem[] {
  return data ? data.pages.toReversed().flatMap((page) => page.items) : [];
}
