import { z } from 'zod';
import { ZUserRole } from '../../shared/communication';
import { directorProcedure, router, stepUpDirectorProcedure } from '../trpc/init';
import { ZRecordId } from '../trpc/record-id';
import { inviteUser, listPendingInvitations, revokeInvitation } from './invitations';
import { ZAddUserInput } from './user-inputs';

const ZInvitation = z.object({
  id: z.number(),
  email: z.string(),
  name: z.string(),
  role: ZUserRole,
  createdAt: z.date(),
  expiresAt: z.date(),
});

/** What inviting needs beyond the request: where links point, and the clock. */
export type TInvitationsRouterDeps = { siteUrl: string; now: () => Date };

/**
 * Directors invite people (users.invite): the answer is the one-time link to pass on, shown to the
 * director this once; the server keeps only its hash. Merged under `users` with the other account procedures.
 */
export function createInvitationsRouter(deps: TInvitationsRouterDeps) {
  return router({
    invite: stepUpDirectorProcedure
      .input(ZAddUserInput.omit({ password: true }))
      .output(z.object({ inviteUrl: z.string(), expiresAt: z.date(), invitation: ZInvitation }))
      .mutation(async ({ ctx, input }) => {
        const { invitation, token } = await inviteUser(input, { userId: ctx.user.id, ip: ctx.clientIp }, deps.now());
        return { inviteUrl: `${deps.siteUrl}/invite/${token}`, expiresAt: invitation.expiresAt, invitation };
      }),

    /** Pending invitations (not used, withdrawn or expired), newest first. */
    invitations: directorProcedure.output(z.array(ZInvitation)).query(() => listPendingInvitations(deps.now())),

    revokeInvite: directorProcedure
      .input(z.object({ id: ZRecordId }))
      .output(z.object({ ok: z.literal(true) }))
      .mutation(async ({ ctx, input }) => {
        await revokeInvitation(input, { userId: ctx.user.id, ip: ctx.clientIp }, deps.now());
        return { ok: true as const };
      }),
  });
}
