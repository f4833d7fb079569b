import { warnUnlessStopping } from '../core/stopping';
import { leaseDueSends } from './lease-due-sends';
import { markNotSent } from './mark-not-sent';
import { refusalOf, sendDueSend, type TSchedulingDeps } from './send-due-scheduled';

// The scheduled_sends row is its own job (as a conversation's timers are on its row:
// server/decisions/0017-conversation-timers-on-their-row.md). Every instance polls the table every
// second, leases due rows with FOR UPDATE SKIP LOCKED and sends them a few at a time; a row stops
// being due in the transaction that writes its message's record (send-due-scheduled.ts), so it is
// sent once across instances, restarts and crashes (server/messaging/README.md "Scheduled sends").

export type TScheduledSendWorkerOptions = {
  /** How often due rows are looked for (1 s): a send goes at most this late, when nothing is queued before it. */
  pollMs?: number;
  /**
   * Sends in flight at once on this instance (6): fewer than the request pool's 10 connections, so
   * that a backlog leaves room for people's requests (npm run bench, part 11).
   */
  concurrency?: number;
};

export type TScheduledSendWorker = {
  /** Looks for due rows now (besides the timer). */
  poll: () => void;
  /** Stops leasing and waits for the sends in flight to finish. */
  stop: () => Promise<void>;
};

/**
 * Polls for due scheduled sends until stopped. A round leases as many due rows as there is room
 * for, marks those that will not go (one statement for them all), starts the rest, and leases
 * again while there is a backlog and room; a finished send makes room and asks again at once.
 * Failures are logged and never fatal: a missed round costs one interval.
 */
export function startScheduledSendWorker(deps: TSchedulingDeps, options: TScheduledSendWorkerOptions = {}): TScheduledSendWorker {
  const concurrency = options.concurrency ?? 6;
  // Under a backlog, rows are leased a few at a time as sends finish, not one lease per send.
  const leaseAtLeast = Math.max(1, Math.floor(concurrency / 4));
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let taking: Promise<void> | null = null;
  let again = false;

  const warn = (what: string) => (error: unknown) =>
    warnUnlessStopping(deps.logger, { error: (error as Error).name, code: (error as { parent?: { code?: string } }).parent?.code }, what);

  const start = (send: Promise<void>) => {
    const tracked = send.catch(warn('a scheduled send failed')).finally(() => {
      inFlight.delete(tracked);
      poll();
    });
    inFlight.add(tracked);
  };

  const takeDue = async () => {
    do {
      again = false;
      while (!stopped && concurrency - inFlight.size >= leaseAtLeast) {
        const room = concurrency - inFlight.size;
        const due = await leaseDueSends(room);
        const refused = due.flatMap((row) => refusalOf(row) ?? []);
        const refusedIds = new Set(refused.map((r) => r.id));
        for (const row of due) if (!refusedIds.has(row.id)) start(sendDueSend(deps, row));
        await markNotSent(refused);
        if (due.length < room) break;
      }
    } while (again && !stopped);
  };

  const poll = () => {
    if (stopped) return;
    if (taking) {
      again = true;
      return;
    }
    taking = takeDue()
      .catch((error: unknown) => {
        again = false; // the next round is the timer's: a database away is not asked again at once
        warn('taking up due scheduled sends failed')(error);
      })
      .finally(() => {
        taking = null;
        // Room made (or rows refused) while the last lease was under way: take again at once.
        if (again) poll();
      });
  };

  poll();
  const timer = setInterval(poll, options.pollMs ?? 1_000).unref();
  return {
    poll,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await taking;
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
  };
}
