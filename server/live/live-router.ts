import { tracked } from '@trpc/server';
import { z } from 'zod';
import { watchSession } from '../auth';
import type { TConfig } from '../core/config';
import { ZThreadItem } from '../inbox';
import { AppError } from '../core/errors';
import { authedProcedure, router } from '../trpc/init';
import { zTrackedEvents } from '../trpc/tracked-events';
import { LIVE_PATH } from './live-path';
import { ZLiveInput, type LiveStreams } from './live-streams';

/** What one stream is sent (TStreamChange, live-streams.ts): records, or a word to read lists or notifications again. */
const ZStreamChange = z.union([
  z.object({ items: z.array(ZThreadItem) }),
  z.object({ resync: z.literal(true) }),
  z.object({ ownership: z.literal(true) }),
  z.object({ notifications: z.literal(true) }),
]);

/** The fan-out the subscription reads, and the session secret that ends it with its session. */
export type TLiveRouterDeps = { liveStreams: LiveStreams; config: Pick<TConfig, 'sessionSecret'> };

/** `inbox.onChange`: mounted under `inbox`, where the SPA has always subscribed to it. */
export function createLiveRouter(deps: TLiveRouterDeps) {
  return router({
    /**
     * Live changes (SSE) to chat records the user may see (server/access/README.md "Ethical walls"), as thread items, each with an event id. Over HTTP
     * the fan-out serves every signed-in stream (`server/live/live-stream-route.ts`) with these same
     * events; this body serves callers inside the process. `lastEventId` (a reconnect): the first
     * event is a resync.
     */
    onChange: authedProcedure
      .input(ZLiveInput)
      .output(zTrackedEvents(ZStreamChange))
      .subscription(async function* ({ ctx, input, signal }) {
        // Only another spelling of the path (inbox%2EonChange) gets here over HTTP: it would be a stream
        // without the fan-out's limits, counts and shutdown.
        if (ctx.viaHttp) throw new AppError('INVALID_INPUT', `Open live updates at GET /trpc${LIVE_PATH}.`);
        // The stream ends with the session it was opened with (sign-out anywhere, or expiry).
        const session = ctx.sessionToken ? watchSession(ctx.sessionToken, deps.config.sessionSecret) : null;
        try {
          const until = [signal, session?.signal].filter((s): s is AbortSignal => s !== undefined);
          const changes = deps.liveStreams.changesFor(
            ctx.user,
            until.length ? AbortSignal.any(until) : undefined,
            Boolean(input?.lastEventId),
          );
          for await (const { id, change } of changes) yield tracked(String(id), change);
        } finally {
          session?.stop();
        }
      }),
  });
}
