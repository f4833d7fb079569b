import type { ReactNode } from 'react';

type TQuery<T> = { isPending: boolean; isError: boolean; error: { message: string } | null; data: T | undefined };

/** Loading and error states for a query, then its data. */
export function QueryStatus<T>({ query, loading, children }: { query: TQuery<T>; loading: string; children: (data: T) => ReactNode }) {
  if (query.isPending) {
    return (
      <p className="muted pad" role="status">
        {loading}
      </p>
    );
  }
  if (query.isError || query.data === undefined) {
    return (
      <p className="form-error" role="alert">
        {query.error?.message ?? 'Could not load this.'}
      </p>
    );
  }
  return <>{children(query.data)}</>;
}
