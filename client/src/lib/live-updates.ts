import { trpc, threadKeyOf, threadRefOf, type TThreadItem, type TThreadSummary } from './trpc';

type TUtils = ReturnType<typeof trpc.useUtils>;

function upsertById<T extends { id: number }>(list: T[], item: T, newestFirst: boolean): T[] {
  const index = list.findIndex((x) => x.id === item.id);
  if (index >= 0) return list.map((x, i) => (i === index ? item : x));
  return newestFirst ? [item, ...list] : [...list, item];
}

function patchThreads(threads: TThreadSummary[], item: TThreadItem): TThreadSummary[] | null {
  const key = threadKeyOf(item);
  const index = threads.findIndex((t) => t.key === key);
  if (index < 0) return null; // a thread this list has not seen: refetch the list
  const thread = threads[index]!;
  const isNew = item.id > thread.last.id;
  const isLast = isNew || item.id === thread.last.id;
  const updated: TThreadSummary = {
    ...thread,
    last: isLast
      ? { id: item.id, body: item.body, direction: item.direction, status: item.status, createdAt: item.createdAt, kind: item.metadata.kind ?? 'text', fileName: item.attachments[0]?.fileName ?? null }
      : thread.last,
    unread: thread.unread + (isNew && item.direction === 'inbound' && !item.readAt ? 1 : 0),
    lastInboundAt:
      item.direction === 'inbound' && (!thread.lastInboundAt || (item.providerTimestamp ?? item.createdAt) > thread.lastInboundAt)
        ? (item.providerTimestamp ?? item.createdAt)
        : thread.lastInboundAt,
  };
  const rest = threads.filter((_, i) => i !== index);
  return isNew ? [updated, ...rest] : threads.map((t, i) => (i === index ? updated : t));
}

/** Applies live changes to the React Query caches in place; refetches only what it cannot patch. */
export function applyLiveItems(utils: TUtils, items: TThreadItem[]): void {
  let refetchThreads = false;
  for (const item of items) {
    utils.inbox.thread.setData(threadRefOf(item), (data) => (data ? { ...data, items: upsertById(data.items, item, false) } : data));
    // A record relinked to a client leaves its number's thread.
    if (item.clientId !== null && item.peerPhone) {
      utils.inbox.thread.setData({ phone: item.peerPhone }, (data) => (data ? { ...data, items: data.items.filter((x) => x.id !== item.id) } : data));
    }
    utils.inbox.threads.setData(undefined, (threads) => {
      if (!threads) return threads;
      const patched = patchThreads(threads, item);
      if (!patched) refetchThreads = true;
      return patched ?? threads;
    });
    if (item.clientId !== null) {
      utils.timeline.client.setData({ clientId: item.clientId }, (data) => (data ? { ...data, items: upsertById(data.items, item, true) } : data));
    }
    if (item.caseId !== null) {
      utils.timeline.case.setData({ caseId: item.caseId }, (data) => (data ? { ...data, items: upsertById(data.items, item, true) } : data));
    }
    // A file arrived, or finished (or failed) downloading: the Documents lists it is on change.
    if (item.attachments.length) {
      if (item.clientId !== null) void utils.timeline.documents.invalidate({ clientId: item.clientId });
      if (item.caseId !== null) void utils.timeline.documents.invalidate({ caseId: item.caseId });
    }
  }
  if (refetchThreads) void utils.inbox.threads.invalidate();
  // A filtered list (unread, awaiting reply…) cannot be patched in place — a change can move a
  // conversation in or out of it: the one on screen is refetched (the filter runs on the server).
  else if (items.length) void utils.inbox.threads.invalidate({ filter: undefined }, { predicate: (query) => hasFilter(query.queryKey), refetchType: 'active' });
}

function hasFilter(queryKey: readonly unknown[]): boolean {
  const input = (queryKey[1] as { input?: { filter?: string } } | undefined)?.input;
  return Boolean(input?.filter && input.filter !== 'all');
}

/** One live subscription for the signed-in app. */
export function useLiveUpdates(): void {
  const utils = trpc.useUtils();
  trpc.inbox.onChange.useSubscription(undefined, {
    onData: (change) => {
      if ('items' in change) applyLiveItems(utils, change.items);
      else {
        void utils.inbox.invalidate();
        void utils.timeline.invalidate();
      }
    },
  });
}
