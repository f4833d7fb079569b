import { useState } from 'react';
import { threadInputOf } from '../../lib/cache-patches';
import { trpc, type TThreadItem, type TThreadRef } from '../../lib/trpc';
import { retryUnlessNotFound } from '../access';

// A thread's pages (server/README.md "HTTP surfaces", `inbox.thread`: `cursor`/`nextCursor`), the newest
// page first, each oldest first. Earlier pages load as the reader scrolls up (`fetchNextPage`).

/**
 * The thread's newest page, then earlier ones as asked for. Opened to show an old message
 * (`seeking`: a search hit), its pages are ten times larger, to reach it in fewer requests; the
 * size stays as it was first asked for while the thread is on screen (it is part of the cache key).
 * NOT_FOUND is not asked again: a person walled from the conversation sees it close at once.
 */
export function useThreadPages(ref: TThreadRef, seeking: boolean) {
  const [input] = useState(() => threadInputOf(ref, seeking));
  return trpc.inbox.thread.useInfiniteQuery(input, { getNextPageParam: (page) => page.nextCursor, retry: retryUnlessNotFound });
}

/** Every loaded item of the thread, oldest first. */
export function itemsOf(data: { pages: { items: TThreadItem[] }[] } | undefined): TThreadItem[] {
  return data ? data.pages.toReversed().flatMap((page) => page.items) : [];
}
