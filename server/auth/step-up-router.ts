import { z } from 'zod';
import { recordAuditEvent } from '../audit';
import { AppError } from '../core/errors';
import { authedProcedure, router, STEP_UP_WINDOW_MS } from '../trpc/init';
import { checkFactorAnswer, REFUSED } from './complete-sign-in';
import { secondFactorKeysFrom } from './second-factor-keys';
import { markSecondFactorProven } from './sessions';
import type { SignInLimiter } from './sign-in-limiter';
import { ZTotpCode } from './totp';

// Step-up (server/auth/README.md "Step-up and the firm's policy"): the signed-in person proves their
// second factor again, with the checks and the limits of a sign-in's second step, and the session
// remembers when, for the changes that ask for a proof within the last 10 minutes.

const ZStepUp = z.union([
  z.strictObject({ code: ZTotpCode }),
  z.strictObject({ recoveryCode: z.string().trim().min(1, 'Enter a recovery code').max(40, 'That is not a recovery code') }),
  z.strictObject({ passkey: z.record(z.string(), z.unknown()) }),
]);

export type TStepUpRouterDeps = { signInLimiter: SignInLimiter; sessionSecret: string; now: () => Date; signingKeyFile: string };

export function createStepUpRouter(deps: TStepUpRouterDeps) {
  const keys = secondFactorKeysFrom(deps.signingKeyFile);
  return router({
    stepUp: authedProcedure
      .input(ZStepUp)
      .output(z.object({ provenUntil: z.date() }))
      .mutation(async ({ ctx, input }) => {
        const actor = { userId: ctx.user.id, ip: ctx.clientIp };
        // Counted before it is checked, on the same count as a sign-in's second step: a session gives no fresh guesses.
        await deps.signInLimiter.consumeSecondStep(ctx.clientIp, ctx.user.id, ctx.user.email);
        const now = deps.now();
        const { method, refusal } = await checkFactorAnswer(input, ctx.user.id, { keys, now });
        if (refusal) {
          const email = ctx.user.email;
          await recordAuditEvent({ actor, action: 'auth.sign_in_failed', subject: `email:${email}`, detail: { email, reason: refusal } });
          // Not UNAUTHORIZED: the session stands, and the SPA reads that word as signed out.
          const field = 'code' in input ? 'code' : 'recoveryCode' in input ? 'recoveryCode' : 'passkey';
          throw new AppError('INVALID_INPUT', REFUSED[refusal], { [field]: [REFUSED[refusal]] });
        }
        await deps.signInLimiter.recordSecondStepSuccess(ctx.clientIp, ctx.user.id);
        await markSecondFactorProven(ctx.sessionToken, deps.sessionSecret, now);
        await recordAuditEvent({ actor, action: 'auth.step_up', subject: `user:${ctx.user.id}`, detail: { method } });
        return { provenUntil: new Date(now.getTime() + STEP_UP_WINDOW_MS) };
      }),
  });
}
