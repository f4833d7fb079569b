import { lazy, Suspense, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { ChoiceGroup } from '../../ui/choice-group';
import { QueryStatus } from '../../ui/query-status';
import { EVERY_THREAD } from '../../lib/cache-patches';
import { formatPhone, formatWaited } from '../../lib/format';
import { listQuery } from '../../lib/inbox-address';
import { olderOf } from '../../lib/older-pages';
import { threadKeyOfRef, threadPath, trpc, type TThreadRef } from '../../lib/trpc';
import { useDebounced } from '../../lib/use-debounced';
import { useShortcuts } from '../../lib/use-shortcuts';
import { isThreadState, StateSwitch, type TThreadState, useOwnershipActions } from '../ownership';
import { AlertsToggle } from './alerts-toggle';
import { NumberFilter, useNumberFilter } from './number-filter';
import { SearchResults } from './search-results';
import { ShortcutsHelp } from './shortcuts-help';
import { ThreadList } from './thread-list';
import { threadTitle } from './thread-title';

// A conversation (composer, message kinds, the virtualised list) loads when the first one is opened:
// the inbox's list comes up first.
const ThreadView = lazy(() => import('./thread-view-chunk').then((m) => ({ default: m.ThreadView })));

type TProps = { threadRef: TThreadRef | null };
type TThreadFilter = 'all' | 'unread' | 'unlinked' | 'awaiting_reply' | 'mine' | 'unassigned' | 'overdue';

const FILTERS: [TThreadFilter, string][] = [
  ['all', 'All'],
  ['unread', 'Unread'],
  ['unlinked', 'Unlinked'],
  ['awaiting_reply', 'Awaiting reply'],
  ['mine', 'Mine'],
  ['unassigned', 'Unassigned'],
  ['overdue', 'Overdue'],
];

/** What a list with nothing in it says, by filter. */
const NOTHING: Record<Exclude<TThreadFilter, 'all'>, string> = {
  unread: 'Nothing unread.',
  unlinked: 'Every number belongs to a client.',
  awaiting_reply: 'No one is waiting for a reply.',
  mine: 'Nothing is assigned to you here.',
  unassigned: 'Every conversation here has someone.',
  overdue: 'No one has waited past the reply target.',
};

const isFilter = (value: string | null): value is TThreadFilter => FILTERS.some(([f]) => f === value);

export function InboxPage({ threadRef }: TProps) {
  // The filter is part of the address: it survives a reload, opening a conversation, and Back.
  const [location, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const asked = params.get('filter');
  const filter: TThreadFilter = isFilter(asked) ? asked : 'all';
  const askedState = params.get('state');
  const state: TThreadState = isThreadState(askedState) ? askedState : 'open';
  const { numberId, choices: numberChoices } = useNumberFilter(params.get('number'));
  const filterQuery = listQuery(filter, state, numberId);
  const setFilter = (value: TThreadFilter) => navigate(`${location}${listQuery(value, state, numberId)}`, { replace: true });
  const setState = (value: TThreadState) => navigate(`${location}${listQuery(filter, value, numberId)}`, { replace: true });
  const setNumber = (value: number | undefined) => navigate(`${location}${listQuery(filter, state, value)}`, { replace: true });
  const [typed, setTyped] = useState('');
  const q = useDebounced(typed.trim(), 300);
  // "All" open is patched live in place (cache-patches.ts); another list is refetched on a change.
  const threads = trpc.inbox.threads.useInfiniteQuery(
    filter === 'all' && state === 'open' && numberId === undefined
      ? EVERY_THREAD
      : {
          ...(filter === 'all' ? {} : { filter }),
          ...(state === 'open' ? {} : { state }),
          ...(numberId === undefined ? {} : { firmNumberId: numberId }),
        },
    { getNextPageParam: (page) => page.nextCursor ?? undefined },
  );
  const replyTarget = trpc.inbox.replyTarget.useQuery(undefined, { staleTime: Infinity });
  const activeKey = threadRef ? threadKeyOfRef(threadRef) : null;
  // The open conversation's summary, whether or not a loaded page lists it.
  const summary = trpc.inbox.threadSummary.useQuery(threadRef ?? { clientId: 0 }, { enabled: threadRef !== null }).data ?? undefined;
  const [helpOpen, setHelpOpen] = useState(false);
  const ownership = useOwnershipActions(threadRef);
  /** The conversation `step` rows below (or above) the open one in the list as shown. */
  const openNeighbour = (step: 1 | -1) => {
    const list = threads.data?.pages.flatMap((page) => page.threads) ?? [];
    const at = list.findIndex((t) => t.key === activeKey);
    const next = list[at < 0 ? 0 : at + step];
    if (next) navigate(threadPath({ clientId: next.clientId, peerPhone: next.phone }) + filterQuery);
  };
  useShortcuts({
    j: () => openNeighbour(1),
    k: () => openNeighbour(-1),
    c: () => document.getElementById('composer-text')?.focus(),
    '/': () => document.getElementById('inbox-search')?.focus(),
    '?': () => setHelpOpen(true),
    // The open conversation: take it when no one has it (never give it back: that is a button's); done (or open again).
    a: () => {
      if (summary) ownership.assignToMe(summary.assignee, threadTitle(summary) ?? formatPhone(summary.phone));
    },
    e: () => {
      if (summary) ownership.setState(summary.state === 'open' ? 'done' : 'open');
    },
  });
  return (
    <div className={`inbox ${threadRef ? 'has-thread' : ''}`}>
      <aside className="inbox-list card" aria-label="Inbox">
        <div className="inbox-list-header">
          <div className="inbox-title">
            <h1>Inbox</h1>
            <AlertsToggle />
            <button type="button" className="button ghost small shortcuts-button" onClick={() => setHelpOpen(true)} aria-keyshortcuts="?">
              Shortcuts <kbd aria-hidden="true">?</kbd>
            </button>
          </div>
          <label className="visually-hidden" htmlFor="inbox-search">
            Search messages
          </label>
          <input
            id="inbox-search"
            type="search"
            className="inbox-search"
            placeholder="Search messages…"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            maxLength={200}
          />
          {!q && (
            <div className="inbox-scope">
              <StateSwitch state={state} onChange={setState} />
              <NumberFilter value={numberId} choices={numberChoices} onChange={setNumber} />
            </div>
          )}
          {!q && (
            <ChoiceGroup
              label="Show"
              options={FILTERS}
              value={filter}
              onChange={setFilter}
              className="inbox-filters"
              optionClass="filter-chip"
              titleOf={(value) => titleOf(value, replyTarget.data?.minutes)}
            />
          )}
        </div>
        {q ? (
          <SearchResults q={q} />
        ) : (
          <QueryStatus query={threads} loading="Loading conversations…">
            {({ pages }) => {
              const list = pages.flatMap((page) => page.threads);
              return list.length === 0 && (filter !== 'all' || state !== 'open' || numberId !== undefined) ? (
                <p className="empty">{nothingSaid(filter, state)}</p>
              ) : (
                <ThreadList threads={list} activeKey={activeKey} linkQuery={filterQuery} more={olderOf(threads)} />
              );
            }}
          </QueryStatus>
        )}
      </aside>
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} />
      <div className="inbox-thread card">
        {threadRef ? (
          <Suspense
            fallback={
              <p className="muted pad" role="status">
                Loading conversation…
              </p>
            }
          >
            <ThreadView key={activeKey} threadRef={threadRef} summary={summary} />
          </Suspense>
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

/** What an empty list says, when the list is narrowed (by filter, state or number). */
function nothingSaid(filter: TThreadFilter, state: TThreadState): string {
  if (filter !== 'all') return NOTHING[filter];
  if (state === 'done') return 'Nothing is done yet.';
  if (state === 'snoozed') return 'Nothing is snoozed.';
  return 'No conversations through this number yet.';
}

/** What a filter's chip says on hover, where its name alone is not enough. */
function titleOf(filter: TThreadFilter, replyTargetMinutes: number | undefined): string | undefined {
  if (filter === 'unlinked') return 'Numbers on no client’s file, or matching several clients';
  if (filter === 'overdue')
    return replyTargetMinutes === undefined
      ? 'The client wrote last, longer ago than the reply target'
      : `The client wrote last, more than ${formatWaited(replyTargetMinutes * 60_000)} ago`;
  if (filter === 'mine') return 'Assigned to you';
  return undefined;
}
