import type { Server } from 'node:http';

/** How long the server waits, per kind of wait; tests shorten them (or lengthen one a loaded machine may need). */
export type THttpTimeouts = {
  /** Headers must have arrived within this (slowloris on any route). */
  headersMs: number;
  /** A request other than an upload must have arrived whole within this. */
  requestMs: number;
  /** An upload is ended when no bytes have arrived for this long; it has no total limit. */
  uploadIdleMs: number;
  /** A webhook delivery not stored within this is answered 503, and the provider retries it. */
  deliveryMs: number;
};

export const HTTP_TIMEOUTS: THttpTimeouts = {
  headersMs: 60_000,
  // Node's own requestTimeout default: what every route but the uploads had before.
  requestMs: 300_000,
  uploadIdleMs: 30_000,
  // Inside the 5 s a provider waits: on a frozen database (no answer at all, so no server-side
  // timeout can fire) it gets 503 and retries rather than waiting for minutes.
  deliveryMs: 4_500,
};

/**
 * Node's requestTimeout is a total limit on receiving any request, which cuts a large upload on a
 * slow link however steadily it arrives, and it answers on the raw socket, behind the app's back.
 * It is turned off here: the app holds every other route to the same total (request-deadline.ts)
 * and uploads to an idle limit instead. headersTimeout stays Node's, for every route.
 */
export function applyHttpTimeouts(server: Server, timeouts: THttpTimeouts = HTTP_TIMEOUTS): void {
  server.requestTimeout = 0;
  server.headersTimeout = timeouts.headersMs;
}
