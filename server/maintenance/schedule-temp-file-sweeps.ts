import type { TLogger } from '../core/logger';
import { sweepTempFiles } from '../core/temp-files';

const SWEEP_EVERY_MS = 60 * 60 * 1000;

/**
 * Sweeps now (at start-up: what a killed predecessor left) and every hour (untagged directories are
 * only known to be abandoned an hour after their last change); failures are logged, never fatal.
 */
export function scheduleTempFileSweeps(logger: TLogger): () => void {
  const run = () =>
    sweepTempFiles().then(
      (removed) => {
        if (removed.length) logger.info({ count: removed.length }, 'removed temporary files left by stopped processes');
      },
      (error: unknown) =>
        logger.warn({ error: (error as Error).name, code: (error as NodeJS.ErrnoException).code }, 'sweeping temporary files failed'),
    );
  void run();
  const timer = setInterval(() => void run(), SWEEP_EVERY_MS).unref();
  return () => clearInterval(timer);
}
