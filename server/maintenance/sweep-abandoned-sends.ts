import { adoptKeptReceipts, markInterruptedSends, SWEEP_SENDS_EVERY_MS } from '../messaging';
import type { TLogger } from '../core/logger';
import { warnUnlessStopping } from '../core/stopping';

/**
 * Marks sends that lost their sender as of unknown outcome (server/messaging/README.md "Sending messages", Unknown
 * outcome; server/decisions/0015-sweeps-run-on-every-instance.md) and matches the receipts already
 * waiting for them (the answer was lost, not the message). Run at start-up and by the schedule
 * below; returns the records marked.
 */
export async function sweepAbandonedSends(logger: TLogger, abandonedMs?: number): Promise<number[]> {
  const ids = await markInterruptedSends(abandonedMs);
  if (!ids.length) return ids;
  logger.warn({ count: ids.length }, 'abandoned sends marked as of unknown outcome');
  await adoptKeptReceipts(ids);
  return ids;
}

/**
 * Every minute, on every instance, sweeps abandoned sends. The statement is idempotent and touches
 * only the few pending rows through a partial index, so instances need no election and a missed
 * round costs one minute; a queue job would add nothing but a row per minute. Failures are logged,
 * never fatal.
 */
export function scheduleSendSweeps(
  logger: TLogger,
  announce: (ids: number[]) => void,
  options: { everyMs?: number; abandonedMs?: number } = {},
): () => void {
  const run = async () => {
    try {
      const ids = await sweepAbandonedSends(logger, options.abandonedMs);
      if (ids.length) announce(ids);
    } catch (error) {
      warnUnlessStopping(logger, { error: (error as Error).name }, 'sweeping abandoned sends failed');
    }
  };
  const timer = setInterval(() => void run(), options.everyMs ?? SWEEP_SENDS_EVERY_MS).unref();
  return () => clearInterval(timer);
}
