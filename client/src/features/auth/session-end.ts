import type { QueryClient } from '@tanstack/react-query';
import { getQueryKey } from '@trpc/react-query';
import { TRPCClientError } from '@trpc/client';
import { setSignedInUser, type TUtils } from '../../lib/cache-patches';
import { trpc } from '../../lib/trpc';
import { forgetUnsentWork } from '../composer';

/**
 * The session behind the page ended (signed out elsewhere, deactivated by a director, expired): the
 * server answers UNAUTHORIZED, and the app asks again who is signed in — nobody, so the sign-in
 * page shows instead of a screen whose every request fails.
 */
export function handleUnauthorized(queryClient: QueryClient, error: unknown): void {
  if (error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === 'UNAUTHORIZED') {
    noteSessionEnded();
    void queryClient.invalidateQueries({ queryKey: getQueryKey(trpc.auth.me) });
  }
}

/**
 * The server ended the live stream: its session ended. Only a clear "nobody is signed in" signs the
 * page out; otherwise (still signed in, or the server unreachable) `otherwise` runs.
 */
export function checkStillSignedIn(utils: TUtils, otherwise: () => void = () => undefined): void {
  utils.client.auth.me.query().then((me) => {
    if (me) return otherwise();
    noteSessionEnded();
    setSignedInUser(utils, null);
  }, otherwise);
}

const ENDED_KEY = 'firm-chat:session-ended';

/**
 * Remembered for the sign-in page, which says why the person is there (a reload keeps it once).
 * The person's drafts and unsent messages go with the session: they are not left for whoever signs
 * in next at this browser.
 */
function noteSessionEnded(): void {
  void forgetUnsentWork();
  try {
    sessionStorage.setItem(ENDED_KEY, '1');
  } catch {
    // storage refused: the sign-in page just does not explain
  }
}

/** Whether the page was signed out by the server (read once: the next visit is a plain sign-in). */
export function takeSessionEnded(): boolean {
  try {
    const ended = sessionStorage.getItem(ENDED_KEY) === '1';
    sessionStorage.removeItem(ENDED_KEY);
    return ended;
  } catch {
    return false;
  }
}
