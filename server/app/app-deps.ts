import type { SignInLimiter } from '../auth/sign-in-limiter';
import type { TConfig } from '../core/config';
import type { TLogger } from '../core/logger';
import type { ChatEvents } from '../events/chat-events';
import type { TThreadItem } from '../inbox';
import type { LiveStreams } from '../live/live-streams';
import type { TMediaStore } from '../media/media-store';
import type { ProviderClient } from '../provider/provider-client';
import type { NumberRouteCache, TProviderFor } from '../numbers';
import type { TSigningKey } from '../signing';

/**
 * What start-server makes once and the app hands out: each router, route and worker is given the
 * few of these it uses (app-router.ts, create-app.ts), never this whole set.
 */
export type TAppDeps = {
  config: TConfig;
  logger: TLogger;
  events: ChatEvents<TThreadItem>;
  /** The open live streams (inbox.onChange) and their fan-out. */
  liveStreams: LiveStreams;
  /** null in demo mode (no MESSAGING_API_KEY): nothing leaves the server. */
  provider: ProviderClient | null;
  /** The client each firm number sends with (its own key); number 1's is `provider`. */
  providerFor: TProviderFor;
  /** The firm's numbers as the webhook routes by them, kept until they change. */
  numberRoutes: NumberRouteCache;
  signInLimiter: SignInLimiter;
  /** Where attachment bytes are kept (PostgreSQL by default). */
  mediaStore: TMediaStore;
  /** The firm's signing key, read from its file (never the database). */
  signingKey: TSigningKey;
  now: () => Date;
};
