import { useQueryClient, type QueryCacheNotifyEvent } from '@tanstack/react-query';
import { useEffect, useEffectEvent } from 'react';
import { trpc } from '../../lib/trpc';
import { isOpen, nextReadIn } from './scheduled-send';

/** Live changes come in bursts: one read after the burst. */
const LIVE_SETTLE_MS = 400;

/**
 * The scheduled sends of one client's conversation (`clientId`), or the signed-in person's own
 * (none given), or everyone's (a director's `everyone`): those waiting and those not sent. Read again when their time passes, and when the
 * live stream changes what the page shows — a record arriving in the conversation (the send went),
 * a change of ownership or a resync, a new notification (one did not go).
 */
export function useScheduledSends(clientId: number | null, everyone = false) {
  // `everyone`: a director's team view (every person's), on the Scheduled page.
  const input = clientId !== null ? { clientId } : everyone ? { everyone } : {};
  const query = trpc.chat.scheduled.useQuery(input, {
    refetchInterval: (q) => nextReadIn(q.state.data, Date.now()),
    // Another tab or a colleague may have changed them meanwhile.
    refetchOnWindowFocus: true,
  });
  const utils = trpc.useUtils();
  const refresh = useEffectEvent(() => void utils.chat.scheduled.invalidate(input));
  const queryClient = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = queryClient.getQueryCache().subscribe((event) => {
      if (!isLiveChange(event, clientId)) return;
      clearTimeout(timer);
      timer = setTimeout(refresh, LIVE_SETTLE_MS);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [queryClient, clientId]);
  const items = query.data?.filter(isOpen);
  return { query, items };
}

/**
 * Whether a change to the page's cache came from the live stream and may concern scheduled sends:
 * a record patched into this client's conversation (or any, for the person's own list), or lists
 * read again after an ownership change, a resync or a notification. The app writes the cache by hand
 * only for live changes and sends (lib/cache-patches.ts), so a hand-written inbox entry is one.
 */
function isLiveChange(event: QueryCacheNotifyEvent, clientId: number | null): boolean {
  if (event.type !== 'updated') return false;
  const [path, options] = event.query.queryKey as [string[] | undefined, { input?: { clientId?: number } } | undefined];
  const feature = path?.[0];
  if (feature !== 'inbox' && feature !== 'notifications') return false;
  if (event.action.type === 'invalidate') return true;
  if (event.action.type !== 'success' || !event.action.manual) return false;
  if (path?.[1] !== 'thread') return false;
  return clientId === null || options?.input?.clientId === clientId;
}
