import { z } from 'zod';
import { directorProcedure, router, stepUpDirectorProcedure } from '../trpc/init';
import { ZRecordId } from '../trpc/record-id';
import { endUserSessions, listSessions } from './manage-sessions';
import { ZSessionItem } from './session-item';
import { sessionKeyOf } from './sessions';

/** What a director's view of someone's sessions needs beyond the request: the session secret (which one is theirs) and the clock. */
export type TUserSessionsRouterDeps = { sessionSecret: string; now: () => Date };

/**
 * Directors see where a person is signed in and can sign them out everywhere (merged under `users`).
 * Ending sessions takes nobody across a wall, so a screened director may do it, as they may deactivate.
 */
export function createUserSessionsRouter(deps: TUserSessionsRouterDeps) {
  return router({
    sessions: directorProcedure
      .input(z.object({ userId: ZRecordId }))
      .output(z.array(ZSessionItem))
      .query(({ ctx, input }) => listSessions(input.userId, sessionKeyOf(ctx.sessionToken, deps.sessionSecret), deps.now())),

    /** Every session of the person ends, their open live streams at once; the director's own too, if they are the person. */
    endSessions: stepUpDirectorProcedure
      .input(z.object({ userId: ZRecordId }))
      .output(z.object({ sessionsEnded: z.number() }))
      .mutation(async ({ ctx, input }) => {
        const actor = { userId: ctx.user.id, ip: ctx.clientIp };
        const { sessionsEnded, endedCurrent } = await endUserSessions(
          { userId: input.userId, currentKey: sessionKeyOf(ctx.sessionToken, deps.sessionSecret) },
          actor,
        );
        if (endedCurrent) ctx.sessionCookie.clear();
        return { sessionsEnded };
      }),
  });
}
