import type { ReactNode } from 'react';

type TQuery<T> = {
  isPending: boolean;
  isError: boolean;
  error: { message: string } | null;
  data: T | undefined;
  refetch?: () => unknown;
  isFetching?: boolean;
};

/** Loading and error states for a query (a failed load offers Retry), then its data. */
export function QueryStatus<T>({ query, loading, children }: { query: TQuery<T>; loading: string; children: (data: T) => ReactNode }) {
  if (query.isPending && !query.isError) {
    return (
      <p className="muted pad" role="status">
        {loading}
      </p>
    );
  }
  if (query.isError || query.data === undefined) {
    return (
      <div className="form-error query-error" role="alert">
        <span>{query.error?.message ?? 'Could not load this.'}</span>
        {query.refetch && (
          <button type="button" className="button small" onClick={() => void query.refetch!()} disabled={query.isFetching}>
            {query.isFetching ? 'Retrying…' : 'Retry'}
          </button>
        )}
      </div>
    );
  }
  return <>{children(query.data)}</>;
}
