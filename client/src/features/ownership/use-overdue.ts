import { trpc, type TThreadSummary } from '../../lib/trpc';
import { useMinuteClock } from '../../lib/use-minute-clock';

/**
 * How long the client has waited, in ms, when the conversation is overdue (the client wrote last,
 * longer ago than the firm's reply target); else null. Worked out here from the conversation's
 * last message and the target, and again each minute, so a row turns overdue, counts up, and stops
 * being overdue once the firm replies, without a reload. Until the target has loaded, the server's
 * word for it stands.
 */
export function useOverdueWait(thread: TThreadSummary): number | null {
  const now = useMinuteClock();
  const targetMinutes = trpc.inbox.replyTarget.useQuery(undefined, { staleTime: Infinity }).data?.minutes;
  const waitingSince = thread.lastInboundAt;
  if (!waitingSince) return null;
  const overdue =
    targetMinutes === undefined
      ? thread.overdue
      : thread.last.direction === 'inbound' && now - thread.last.createdAt.getTime() > targetMinutes * 60_000;
  return overdue ? Math.max(0, now - waitingSince.getTime()) : null;
}
