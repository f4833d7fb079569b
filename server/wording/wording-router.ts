import { z } from 'zod';
import { authedProcedure, directorProcedure, router } from '../trpc/init';
import { addWording, listWording, removeWording, updateWording } from './firm-wording';
import { ZAddWordingInput, ZRemoveWordingInput, ZUpdateWordingInput, ZWording } from './wording-schema';

/** The firm's wording (server/wording/README.md "Firm wording"): everyone reads it, directors edit it. */
export const wordingRouter = router({
  /** Anyone signed in: the composer's picker. */
  list: authedProcedure.output(z.array(ZWording)).query(() => listWording()),

  /** Directors only (server/decisions/0013-roles-enforced-by-the-server.md), whatever the page shows. */
  add: directorProcedure
    .input(ZAddWordingInput)
    .output(ZWording)
    .mutation(({ ctx, input }) => addWording({ userId: ctx.user.id, ip: ctx.clientIp }, input)),

  update: directorProcedure
    .input(ZUpdateWordingInput)
    .output(ZWording)
    .mutation(({ ctx, input }) => updateWording({ userId: ctx.user.id, ip: ctx.clientIp }, input)),

  remove: directorProcedure
    .input(ZRemoveWordingInput)
    .output(z.object({ id: z.number() }))
    .mutation(({ ctx, input }) => removeWording({ userId: ctx.user.id, ip: ctx.clientIp }, input.id)),
});
