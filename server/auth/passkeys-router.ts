import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import { z } from 'zod';
import { User } from '../core/db/models/index';
import { AppError } from '../core/errors';
import type { TSessionUser } from '../core/session-user';
import { enrolmentProcedure, publicProcedure, router, stepUpProcedure } from '../trpc/init';
import { verifyPasskeyAssertion } from './passkey-assertion';
import { storeChallenge } from './passkey-challenges';
import { listPasskeys, removeOwnPasskey } from './passkey-manage';
import { PASSKEY_NAME_MAX, passkeyRegistrationOptions, registerPasskey } from './passkey-registration';
import { ZAuthenticationResponse, ZRegistrationResponse } from './passkey-responses';
import { passkeyRpOf } from './passkey-rp';
import { markSecondFactorProven, sessionKeyOf } from './sessions';
import { signInPlaceOf, startSession } from './start-session';
import type { SignInLimiter } from './sign-in-limiter';

const ZSessionUser = z.object({ id: z.number(), name: z.string(), email: z.string(), role: z.enum(['director', 'staff']) });
const ZPasskeyItem = z.object({ id: z.number(), name: z.string(), createdAt: z.date(), lastUsedAt: z.date().nullable() });
// The options are @simplewebauthn's, handed to the browser as they are.
const ZCreationOptions = z.custom<PublicKeyCredentialCreationOptionsJSON>((v) => typeof v === 'object' && v !== null);
const ZRequestOptions = z.custom<PublicKeyCredentialRequestOptionsJSON>((v) => typeof v === 'object' && v !== null);

const DEACTIVATED = 'This account has been deactivated. Ask a director of the firm if you need access again.';

/** What passkeys need beyond the request: the limiter, the session secret, the clock, and the site (the RP). */
export type TPasskeysRouterDeps = { signInLimiter: SignInLimiter; sessionSecret: string; now: () => Date; siteUrl: string };

/** `auth.passkeys`: a person's passkeys (Settings › Passkeys) and signing in with one alone. */
export function createPasskeysRouter(deps: TPasskeysRouterDeps) {
  const rp = passkeyRpOf(deps.siteUrl);
  return router({
    registrationOptions: enrolmentProcedure
      .output(ZCreationOptions)
      .mutation(({ ctx }) => passkeyRegistrationOptions(ctx.user, rp, deps.now())),

    register: enrolmentProcedure
      .input(
        z.object({
          response: ZRegistrationResponse,
          name: z.string().trim().max(PASSKEY_NAME_MAX, `A passkey's name is ${PASSKEY_NAME_MAX} characters at most`).optional(),
        }),
      )
      .output(ZPasskeyItem)
      .mutation(async ({ ctx, input }) => {
        const item = await registerPasskey(
          { response: input.response, name: input.name },
          { userId: ctx.user.id, ip: ctx.clientIp },
          deps.now(),
        );
        // Registration verified the person on the passkey: a proof of the factor on this session.
        await markSecondFactorProven(ctx.sessionToken, deps.sessionSecret, deps.now());
        return item;
      }),

    list: enrolmentProcedure.output(z.array(ZPasskeyItem)).query(({ ctx }) => listPasskeys(ctx.user.id)),

    remove: stepUpProcedure
      .input(z.object({ id: z.number().int().positive() }))
      .output(z.object({ sessionsEnded: z.number() }))
      .mutation(({ ctx, input }) =>
        removeOwnPasskey(
          { id: input.id, currentKey: sessionKeyOf(ctx.sessionToken, deps.sessionSecret) },
          { userId: ctx.user.id, ip: ctx.clientIp },
        ),
      ),

    /** Discoverable credentials, no allow-list: the options name no account, so none is revealed. */
    signInOptions: publicProcedure.output(ZRequestOptions).mutation(async () => {
      const options = await generateAuthenticationOptions({ rpID: rp.rpId, userVerification: 'required' });
      await storeChallenge(options.challenge, 'authenticate', { userId: null, rp }, deps.now());
      return options;
    }),

    signIn: publicProcedure
      .input(z.object({ response: ZAuthenticationResponse }))
      .output(z.object({ user: ZSessionUser }))
      .mutation(async ({ ctx, input }) => {
        // Counted per address before the answer is checked, as password attempts are.
        await deps.signInLimiter.consumeAddress(ctx.clientIp);
        const { userId } = await verifyPasskeyAssertion(input.response, null, deps.now());
        const found = await User.findByPk(userId);
        if (!found || found.deactivatedAt) throw new AppError('UNAUTHORIZED', DEACTIVATED);
        await deps.signInLimiter.rewardAddress(ctx.clientIp);
        const user: TSessionUser = { id: found.id, name: found.name, email: found.email, role: found.role };
        await startSession(user.id, { method: 'passkey' }, signInPlaceOf(ctx), deps);
        return { user };
      }),
  });
}
