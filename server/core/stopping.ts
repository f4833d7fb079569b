// Whether this process is stopping on a signal. A terminal's Ctrl-C reaches the embedded PostgreSQL too
// (our child, in our process group), which ends our connections as we close: expected then, not a fault.
let stopping = false;

/** The process began its shutdown (server/main.ts, on SIGINT, SIGTERM or SIGHUP). */
export function markStopping(): void {
  stopping = true;
}

/** PostgreSQL's "terminating connection due to administrator command" and its shutdown siblings (class 57P). */
// Sequelize wraps the driver's error (`original`, `parent`).
const SHUTDOWN_CODES = ['57P01', '57P02', '57P03'];
const isServerShutdownError = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  const { code, original, parent } = error as { code?: unknown; original?: unknown; parent?: unknown };
  return (
    SHUTDOWN_CODES.includes(String(code)) ||
    (original !== undefined && isServerShutdownError(original)) ||
    (parent !== undefined && parent !== original && isServerShutdownError(parent))
  );
};

// PostgreSQL may end a connection a moment before this process handles the same Ctrl-C.
const SIGNAL_GRACE_MS = 250;

/**
 * Reports a database failure — a lost connection, a background task's statement — `quiet` when PostgreSQL
 * ended it because we are stopping (also when its notice came just before our own signal did), `loud` otherwise.
 */
export function reportUnlessStopping(error: unknown, loud: () => void, quiet: () => void): void {
  if (!isServerShutdownError(error)) return loud();
  if (stopping) return quiet();
  setTimeout(() => (stopping ? quiet() : loud()), SIGNAL_GRACE_MS).unref();
}
