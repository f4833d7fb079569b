/** Where the SPA opens its live stream, under /trpc: served by the fan-out, not the tRPC adapter. */
export const LIVE_PATH = '/inbox.onChange';
