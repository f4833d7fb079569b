import { useEffect, useEffectEvent, useRef } from 'react';
import { markThreadReadInCache } from '../../lib/cache-patches';
import { threadKeyOfRef, trpc, type TThreadItem, type TThreadRef } from '../../lib/trpc';

/**
 * Opening a thread marks it read for the reader (server/inbox/README.md "Unread") — on every opening,
 * whatever its items' `readAt` say, so their notifications about it clear too — once its messages have
 * loaded and while the newest is in view (`atEnd`), not while the reader is further up; and again when
 * a new inbound message arrives while it is open there.
 */
export function useMarkThreadRead(threadRef: TThreadRef, items: TThreadItem[] | undefined, atEnd: boolean): void {
  const utils = trpc.useUtils();
  const markRead = trpc.inbox.markRead.useMutation();
  const key = threadKeyOfRef(threadRef);
  const newestInbound = items?.reduce((newest, i) => (i.direction === 'inbound' && i.id > newest ? i.id : newest), 0) ?? 0;
  // The opening (conversation and newest inbound message) last marked: each is marked once.
  const marked = useRef<string | null>(null);
  const markOpenThreadRead = useEffectEvent(() => {
    markRead.mutate(threadRef, {
      onSuccess: ({ updated }) => {
        markThreadReadInCache(utils, threadRef, key);
        if (updated > 0) void utils.inbox.unreadCount.invalidate();
        if (updated > 0) void utils.inbox.threads.invalidate({ filter: 'unread' });
      },
      // Not marked after all: the next change of items tries again.
      onError: () => {
        marked.current = null;
      },
    });
  });
  useEffect(() => {
    if (!items || !atEnd) return;
    const opening = `${key}@${newestInbound}`;
    if (marked.current === opening) return;
    marked.current = opening;
    markOpenThreadRead();
  }, [items, atEnd, key, newestInbound]);
}
