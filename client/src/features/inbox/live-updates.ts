import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { applyLiveItems, findListedThread, readAgainWhatIsInFlight, type TUtils } from '../../lib/cache-patches';
import { formatPhone } from '../../lib/format';
import { noteLiveRecords } from '../../lib/live-records';
import { threadKeyOf, trpc, type TThreadItem } from '../../lib/trpc';
import { checkStillSignedIn } from '../auth';
import { alertNewNotifications } from '../notifications';
import { refreshOwnership } from '../ownership';
import { alertNewMessages } from './new-message-alerts';

/** A new message's sender as the inbox lists them: the client, the profile name, else the number. */
function senderNameOf(utils: TUtils, item: TThreadItem): string {
  const listed = findListedThread(utils, threadKeyOf(item));
  return listed?.clientName ?? item.metadata.contact_name ?? (item.peerPhone ? formatPhone(item.peerPhone) : 'a contact');
}

/**
 * Marks on the page whether the live stream is open (`<html data-live="open">`), so that tests
 * (and anyone looking) can wait for it rather than guess: a change made before it is open would
 * only reach the page with the next resync.
 */
function markLiveStream(state: 'open' | 'closed'): void {
  document.documentElement.dataset.live = state;
}

/** The first wait before a failed live stream is opened again; it doubles up to the last. */
const RESTART_FIRST_MS = 2_000;
const RESTART_MAX_MS = 30_000;

/**
 * One live subscription for the signed-in app. The browser reconnects a stream that merely dropped
 * by itself (and the server then says to resync); a stream that failed outright (an error status, a
 * refusal) or ended while its person is still signed in is opened again here, after a wait that
 * grows, and what was missed meanwhile is read again.
 */
export function useLiveUpdates(): void {
  const utils = trpc.useUtils();
  const queryClient = useQueryClient();
  // `ownEnds` counts the streams this page ended itself, each just after its completion is heard.
  const restart = useRef<{ timer?: ReturnType<typeof setTimeout>; waitMs: number; ownEnds: number }>({
    waitMs: RESTART_FIRST_MS,
    ownEnds: 0,
  });
  // A resync also follows every wall change (server/access/README.md "Ethical walls"): the clients, cases and walls
  // on screen are read again too, so a matter appears, or closes, for its people at once.
  const resync = () => {
    void utils.inbox.invalidate();
    void utils.timeline.invalidate();
    void utils.clients.invalidate();
    void utils.cases.invalidate();
    void utils.access.invalidate();
    void utils.notifications.invalidate();
  };
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data;
  const live = trpc.inbox.onChange.useSubscription(undefined, {
    // Called when the server's stream has started (its first event), not when it is asked for.
    onStarted: () => markLiveStream('open'),
    // Each change comes with its event id; a reconnecting stream starts with a resync (it missed what came meanwhile).
    onData: ({ data: change }) => {
      restart.current.waitMs = RESTART_FIRST_MS;
      if ('items' in change) {
        noteLiveRecords(change.items);
        applyLiveItems(utils, change.items);
        readAgainWhatIsInFlight(queryClient);
        alertNewMessages(change.items, (item) => senderNameOf(utils, item));
      } else if ('ownership' in change) {
        // Someone's assignee or state changed: what shows ownership is read again, nothing else.
        refreshOwnership(utils);
      } else if ('notifications' in change) {
        // Sent only to the people concerned: their bell's count and list, and a desktop alert if on; also
        // when they read a conversation in another page, so their own unread (badge, rows) is read again.
        void utils.notifications.invalidate();
        void utils.inbox.unreadCount.invalidate();
        void utils.inbox.threads.invalidate();
        void utils.inbox.threadSummary.invalidate();
        void alertNewNotifications(utils, me?.id);
      } else {
        resync();
      }
    },
    onError: () => {
      markLiveStream('closed');
      restartLater();
    },
    // The server ends the stream when its session ends (sign-out elsewhere, deactivation). A stream
    // this page ended itself (a restart, leaving the page) completes too: that one is not restarted,
    // or every restart would schedule the next, each tearing down a good stream and reading all again.
    onComplete: () => {
      markLiveStream('closed');
      const stream = restart.current.ownEnds;
      checkStillSignedIn(utils, () => {
        if (stream === restart.current.ownEnds) restartLater();
      });
    },
  });
  // A stream that dropped is reconnected by the browser; until it has started again it is not open.
  const reconnecting = live.status === 'connecting';
  useEffect(() => {
    if (reconnecting) markLiveStream('closed');
  }, [reconnecting]);
  function restartLater(): void {
    const state = restart.current;
    clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      live.reset();
      state.ownEnds++;
      resync();
    }, state.waitMs);
    state.waitMs = Math.min(state.waitMs * 2, RESTART_MAX_MS);
  }
  useEffect(() => {
    const state = restart.current;
    return () => {
      clearTimeout(state.timer);
      state.ownEnds++;
      markLiveStream('closed');
    };
  }, []);
}
