import { authedProcedure, directorProcedure, router } from '../trpc/init';
import { readBusinessHours, saveBusinessHours } from './business-hours';
import { ZBusinessHours, ZBusinessHoursInput } from './business-hours-schema';

/** Mounted under `settings` (server/messaging/README.md "Business hours"), beside the settings router's own procedures; `firmTimeZone`: FIRM_TIME_ZONE. */
export function createBusinessHoursRouter(deps: { firmTimeZone: string }) {
  return router({
    /** Anyone signed in: the SPA reads the firm's time zone for "send later", and staff may see the hours. */
    businessHours: authedProcedure.output(ZBusinessHours).query(() => readBusinessHours(undefined, deps.firmTimeZone)),

    /** Directors only (server/decisions/0013-roles-enforced-by-the-server.md): enforced here, whatever the page shows. */
    setBusinessHours: directorProcedure
      .input(ZBusinessHoursInput)
      .output(ZBusinessHours)
      .mutation(({ ctx, input }) => saveBusinessHours({ userId: ctx.user.id, ip: ctx.clientIp }, input)),
  });
}
