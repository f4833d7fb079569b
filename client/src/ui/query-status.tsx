import type { ReactNode } from 'react';

type TQuery<T> = {
  isPending: boolean;
  isError: boolean;
  error: { message: string } | null;
  data: T | undefined;
  refetch?: () => unknown;
  isFetching?: boolean;
};

/**
 * Loading and error states for a query (a failed load offers Retry), then its data. `padded`: the
 * loading line gets room of its own (a pane); inside a card, whose padding it shares, it does not.
 */
export function QueryStatus<T>({
  query,
  loading,
  padded = true,
  children,
}: {
  query: TQuery<T>;
  loading: string;
  padded?: boolean;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending && !query.isError) {
    return (
      <p className={padded ? 'muted pad' : 'muted'} role="status">
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
