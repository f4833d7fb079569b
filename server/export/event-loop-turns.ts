// A copy to verify is anyone's file: every loop over what it holds lets the event loop turn every
// YIELD_EVERY items, so a health check or another request never waits behind a check.

/** Items handled between two turns of the event loop. */
export const YIELD_EVERY = 1_000;

/** Lets the event loop turn: timers, sockets and other requests run before the check goes on. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
