/** A tRPC error answered NOT_FOUND: missing, or (server/access/README.md "Ethical walls") walled from the reader — the two look alike. */
export function isNotFound(error: unknown): boolean {
  return (error as { data?: { code?: unknown } | null } | null)?.data?.code === 'NOT_FOUND';
}

/**
 * The query's `retry`: NOT_FOUND is an answer, not a hiccup — asking again only delays the closed
 * state a walled person should see at once. Anything else is tried once more, as by default.
 */
export function retryUnlessNotFound(failureCount: number, error: unknown): boolean {
  return !isNotFound(error) && failureCount < 1;
}

/**
 * Why a record is not shown: `lost` when it was shown and now answers NOT_FOUND (access taken away
 * while open; a failed refetch keeps the old data), `missing` when it never loaded (a wrong address).
 */
export type TGone = 'lost' | 'missing';

export function goneOf(query: { isError: boolean; error: unknown; data: unknown }): TGone | null {
  if (!query.isError || !isNotFound(query.error)) return null;
  return query.data === undefined ? 'missing' : 'lost';
}
