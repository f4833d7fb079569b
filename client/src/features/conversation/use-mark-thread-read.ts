import { useEffect, useEffectEvent } from 'react';
import { markThreadReadInCache } from '../../lib/cache-patches';
import { threadKeyOfRef, trpc, type TThreadItem, type TThreadRef } from '../../lib/trpc';

/**
 * Opening a thread (and new messages arriving in it while open) marks it read — once its messages
 * have loaded and while the newest is in view (`atEnd`), not while the reader is further up.
 */
export function useMarkThreadRead(threadRef: TThreadRef, items: TThreadItem[] | undefined, atEnd: boolean): void {
  const utils = trpc.useUtils();
  const markRead = trpc.inbox.markRead.useMutation();
  const unreadInbound = items?.some((i) => i.direction === 'inbound' && !i.readAt) ?? false;
  const markOpenThreadRead = useEffectEvent(() => {
    if (markRead.isPending) return;
    markRead.mutate(threadRef, {
      onSuccess: () => {
        markThreadReadInCache(utils, threadRef, threadKeyOfRef(threadRef));
        void utils.inbox.unreadCount.invalidate();
        void utils.inbox.threads.invalidate({ filter: 'unread' });
      },
    });
  });
  // Tried again whenever the items change: a message that came while a mark was on its way is read too.
  useEffect(() => {
    if (items && unreadInbound && atEnd) markOpenThreadRead();
  }, [items, unreadInbound, atEnd]);
}
