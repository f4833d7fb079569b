import type { TUtils } from '../../lib/cache-patches';

/**
 * Someone's assignee or state changed (here, or anyone's, as the live stream says): the lists, the
 * summaries and the workload that show it are read again. Only what is on screen is fetched now; the
 * rest is read when next shown. Not patched in place: a change moves a conversation in or out of
 * Mine, Unassigned, Open, Done and Snoozed, which only the server can say.
 */
export function refreshOwnership(utils: TUtils): void {
  void utils.inbox.threads.invalidate();
  void utils.inbox.threadSummary.invalidate();
  void utils.inbox.workload.invalidate();
}
