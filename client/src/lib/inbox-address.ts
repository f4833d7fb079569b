/** The inbox's address for a filter, a state and a firm number: the defaults (all, open, every number) are left out. */
export function listQuery(filter: string, state: string, numberId?: number | string | null): string {
  const params = new URLSearchParams();
  if (state !== 'open') params.set('state', state);
  if (filter !== 'all') params.set('filter', filter);
  if (numberId !== undefined && numberId !== null && numberId !== '') params.set('number', String(numberId));
  const query = params.toString();
  return query ? `?${query}` : '';
}

/**
 * The way back to the inbox's list as it was shown (its filter, state and number, which an opened
 * conversation's address carries on), from that address's query. Anything else in it (the message
 * a search hit opened at) is the conversation's, and left behind.
 */
export function inboxListPath(search: string): string {
  const params = new URLSearchParams(search);
  return `/inbox${listQuery(params.get('filter') ?? 'all', params.get('state') ?? 'open', params.get('number'))}`;
}
