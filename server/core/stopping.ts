import type { TLogger } from './logger';

// Whether this process is stopping on a signal. A terminal's Ctrl-C reaches the embedded PostgreSQL too
// (our child, in our process group), which ends our connections and statements as we close: expected
// then, not a fault.
let stopping = false;

/** The process began its shutdown (server/main.ts, on SIGINT, SIGTERM or SIGHUP). */
export function markStopping(): void {
  stopping = true;
}

// PostgreSQL may end a connection or a statement a moment before this process handles the same Ctrl-C.
const SIGNAL_GRACE_MS = 250;

/**
 * Reports a database failure — a lost connection, a background task's statement — `quiet` when it came
 * while we are stopping (also when it came just before our own signal did), `loud` otherwise, a
 * moment later.
 */
export function reportUnlessStopping(loud: () => void, quiet: () => void): void {
  if (stopping) return quiet();
  setTimeout(() => (stopping ? quiet() : loud()), SIGNAL_GRACE_MS);
}

/** A background task's failure: a warning, or a debug line when it came as the process stops. */
export function warnUnlessStopping(logger: Pick<TLogger, 'warn'> & Partial<Pick<TLogger, 'debug'>>, detail: object, message: string): void {
  reportUnlessStopping(
    () => logger.warn(detail, message),
    () => logger.debug?.(detail, `${message} (stopping)`),
  );
}
