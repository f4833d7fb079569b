import { z } from 'zod';
import { publicProcedure, router } from '../trpc/init';
import { acceptInvitation, readInvitation } from './invitations';
import type { SignInLimiter } from './sign-in-limiter';
import { signInPlaceOf, startSession } from './start-session';
import { ZNewPassword } from './user-inputs';

// The link's last path segment: base64url of 32 random bytes. Anything else is refused as a bad link.
const ZInviteToken = z.string().trim().min(1, 'The link has no invitation in it').max(200, 'The link is too long');

const ZSessionUser = z.object({ id: z.number(), name: z.string(), email: z.string(), role: z.enum(['director', 'staff']) });

export type TAcceptInviteRouterDeps = { signInLimiter: SignInLimiter; sessionSecret: string; now: () => Date };

/**
 * The invited person's side (public): who the link is for, then their password, after which they are
 * signed in as auth.signIn does. Each try is counted by the sign-in limiter per address, so links
 * cannot be guessed faster than passwords.
 */
export function createAcceptInviteRouter(deps: TAcceptInviteRouterDeps) {
  return router({
    inviteInfo: publicProcedure
      .input(z.object({ token: ZInviteToken }))
      .output(z.object({ email: z.string(), name: z.string(), expiresAt: z.date() }))
      .query(async ({ ctx, input }) => {
        await deps.signInLimiter.consumeAddress(ctx.clientIp);
        const info = await readInvitation(input.token, deps.now());
        await deps.signInLimiter.rewardAddress(ctx.clientIp);
        return info;
      }),

    acceptInvite: publicProcedure
      .input(z.object({ token: ZInviteToken, password: ZNewPassword }))
      .output(z.object({ user: ZSessionUser }))
      .mutation(async ({ ctx, input }) => {
        await deps.signInLimiter.consumeAddress(ctx.clientIp);
        const user = await acceptInvitation(input, ctx.clientIp, deps.now());
        await deps.signInLimiter.rewardAddress(ctx.clientIp);
        await startSession(user.id, { method: 'password' }, signInPlaceOf(ctx), deps);
        return { user };
      }),
  });
}
