import { useEffect, useState } from 'react';
import { QueryStatus } from '../components/query-status';
import { SearchResults } from '../components/search-results';
import { ThreadList } from '../components/thread-list';
import { ThreadView } from '../components/thread-view';
import { threadKeyOf, trpc, type TThreadRef } from '../lib/trpc';

type TProps = { threadRef: TThreadRef | null };
type TThreadFilter = 'all' | 'unread' | 'unlinked' | 'awaiting_reply';

const FILTERS: [TThreadFilter, string][] = [
  ['all', 'All'],
  ['unread', 'Unread'],
  ['unlinked', 'Unknown number'],
  ['awaiting_reply', 'Awaiting reply'],
];

export function InboxPage({ threadRef }: TProps) {
  const [filter, setFilter] = useState<TThreadFilter>('all');
  const [typed, setTyped] = useState('');
  const q = useDebounced(typed.trim(), 300);
  // "All" is the same query as the top bar's unread count (patched live, not refetched).
  const threads = trpc.inbox.threads.useQuery(filter === 'all' ? undefined : { filter });
  const everyThread = trpc.inbox.threads.useQuery();
  const activeKey = threadRef
    ? threadKeyOf('clientId' in threadRef ? { clientId: threadRef.clientId, peerPhone: null } : { clientId: null, peerPhone: threadRef.phone })
    : null;
  // The open conversation's summary, whether or not the filter lists it.
  const summary = everyThread.data?.find((t) => t.key === activeKey);
  return (
    <div className={`inbox ${threadRef ? 'has-thread' : ''}`}>
      <aside className="inbox-list card" aria-label="Inbox">
        <div className="inbox-list-header">
          <h1>Inbox</h1>
          <label className="visually-hidden" htmlFor="inbox-search">
            Search messages
          </label>
          <input id="inbox-search" type="search" className="inbox-search" placeholder="Search messages…" value={typed} onChange={(e) => setTyped(e.target.value)} maxLength={200} />
          {!q && (
          <div className="inbox-filters" role="radiogroup" aria-label="Show">
            {FILTERS.map(([value, label]) => (
              <button key={value} type="button" role="radio" aria-checked={filter === value} className={filter === value ? 'filter-chip active' : 'filter-chip'} onClick={() => setFilter(value)}>
                {label}
              </button>
            ))}
          </div>
          )}
        </div>
        {q ? (
          <SearchResults q={q} />
        ) : (
        <QueryStatus query={threads} loading="Loading conversations…">
          {(list) =>
            list.length === 0 && filter !== 'all' ? (
              <p className="empty">{filter === 'unread' ? 'Nothing unread.' : filter === 'unlinked' ? 'Every number belongs to a client.' : 'No one is waiting for a reply.'}</p>
            ) : (
              <ThreadList threads={list} activeKey={activeKey} />
            )
          }
        </QueryStatus>
        )}
      </aside>
      <div className="inbox-thread card">
        {threadRef ? (
          <ThreadView key={activeKey} threadRef={threadRef} summary={summary} />
        ) : (
          <div className="empty-thread">
            <h2>Choose a conversation</h2>
            <p className="muted">Messages to and from the firm’s number, one conversation per client.</p>
          </div>
        )}
      </div>
    </div>
  );
}

/** The value once it has stopped changing for `ms` (one search per pause in typing, not per key). */
function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
