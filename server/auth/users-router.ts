import { z } from 'zod';
import { ZUserRole } from '../../shared/communication';
import { directorProcedure, router, stepUpDirectorProcedure } from '../trpc/init';
import { ZRecordId } from '../trpc/record-id';
import { addUser, changeUserRole, deactivateUser, listUsers, reactivateUser } from './users';
import { ZAddUserInput, ZUser } from './user-inputs';

/**
 * Directors only, every one of them: checked in the middleware, whatever the page shows. A director
 * screened from any matter adds, promotes, demotes and reactivates no one (account-rules.ts); they may
 * still deactivate someone, which takes nobody across a wall.
 */
export const usersRouter = router({
  /** Who can sign in (and who no longer can): it lists every account. */
  list: directorProcedure.output(z.array(ZUser)).query(() => listUsers()),

  add: stepUpDirectorProcedure
    .input(ZAddUserInput)
    .output(z.object({ user: ZUser, generatedPassword: z.string().nullable() }))
    .mutation(({ ctx, input }) => addUser(input, { userId: ctx.user.id, ip: ctx.clientIp })),

  changeRole: stepUpDirectorProcedure
    .input(z.object({ userId: ZRecordId, role: ZUserRole }))
    .output(ZUser)
    .mutation(({ ctx, input }) => changeUserRole(input, { userId: ctx.user.id, ip: ctx.clientIp })),

  deactivate: stepUpDirectorProcedure
    .input(z.object({ userId: ZRecordId }))
    .output(ZUser)
    .mutation(({ ctx, input }) => deactivateUser(input, { userId: ctx.user.id, ip: ctx.clientIp })),

  /** Undoes a deactivation; the person's email is theirs again. */
  reactivate: stepUpDirectorProcedure
    .input(z.object({ userId: ZRecordId }))
    .output(ZUser)
    .mutation(({ ctx, input }) => reactivateUser(input, { userId: ctx.user.id, ip: ctx.clientIp })),
});
