/** Earlier pages of a list: whether there are more, whether one is on its way or failed, and how to ask. */
export type TOlder = { hasMore: boolean; loading: boolean; failed: boolean; load: () => void };

/** That state for a React Query infinite query. */
export function olderOf(query: {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isFetchNextPageError: boolean;
  fetchNextPage: () => Promise<unknown>;
}): TOlder {
  return {
    hasMore: query.hasNextPage,
    loading: query.isFetchingNextPage,
    failed: query.isFetchNextPageError,
    load: () => void query.fetchNextPage(),
  };
}

/** Records a timeline page holds in the app (the server's default is larger, for older callers). */
export const TIMELINE_PAGE = 50;
