/** The inbox's address for a filter and a state: the defaults (all, open) are left out. */
export function listQuery(filter: string, state: string): string {
  const params = new URLSearchParams();
  if (state !== 'open') params.set('state', state);
  if (filter !== 'all') params.set('filter', filter);
  const query = params.toString();
  return query ? `?${query}` : '';
}

/**
 * The way back to the inbox's list as it was shown (its filter and state, which an opened
 * conversation's address carries on), from that address's query. Anything else in it (the message
 * a search hit opened at) is the conversation's, and left behind.
 */
export function inboxListPath(search: string): string {
  const params = new URLSearchParams(search);
  return `/inbox${listQuery(params.get('filter') ?? 'all', params.get('state') ?? 'open')}`;
}
