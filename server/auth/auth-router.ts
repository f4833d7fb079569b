import { z } from 'zod';
import { hasUnstorableCharacters } from '../../shared/visible-text';
import { recordAuditEvent } from '../audit';
import { AppError } from '../core/errors';
import { enrolmentProcedure, publicProcedure, router, stepUpProcedure } from '../trpc/init';
import { SECOND_FACTOR_METHODS } from '../../shared/session-methods';
import { HashingBusyError } from './password';
import { formatEmailForTrail, type SignInLimiter } from './sign-in-limiter';
import { endWatchedSession } from './session-watch';
import { deleteSession, sessionKeyOf } from './sessions';
import { listSessions, revokeOwnSession } from './manage-sessions';
import { ZSessionItem, ZSessionPublicId } from './session-item';
import { authenticateUser, SignInRefused } from './authenticate-user';
import { signInPlaceOf, startSession } from './start-session';
import { changeOwnPassword } from './change-password';
import { ZNewPassword } from './user-inputs';
import { completeSecondStep } from './complete-sign-in';
import { secondFactorKeysFrom } from './second-factor-keys';
import { issueSignInTicket } from './sign-in-ticket';
import { ZTotpCode } from './totp';

// No account's email has one (users.add takes only well-formed addresses), and PostgreSQL could not
// look one up or record it: refused as a mistake, not checked as a wrong password.
const UNSTORABLE_EMAIL =
  'The email has a character no email address can have (a null or a broken character, often pasted with it): type it again.';

const ZSessionUser = z.object({ id: z.number(), name: z.string(), email: z.string(), role: z.enum(['director', 'staff']) });

const ZTicket = z.string().min(1, 'This sign-in has expired. Sign in again.').max(100);

/** A second step's answer: a code from the authenticator app, a recovery code, or a passkey's answer. */
const ZCompleteSignIn = z.union([
  z.strictObject({ ticket: ZTicket, code: ZTotpCode }),
  z.strictObject({
    ticket: ZTicket,
    recoveryCode: z.string().trim().min(1, 'Enter a recovery code').max(40, 'That is not a recovery code'),
  }),
  z.strictObject({ ticket: ZTicket, passkey: z.record(z.string(), z.unknown()) }),
]);

/**
 * What signing in and out needs beyond the request: the app's limiter, the session secret, the
 * clock, and the signing key file second factors' keys are derived from (second-factor-keys.ts).
 */
export type TAuthRouterDeps = { signInLimiter: SignInLimiter; sessionSecret: string; now: () => Date; signingKeyFile: string };

/** A fresh session for the person, its cookie set and the sign-in audited with its method. */
export function createAuthRouter(deps: TAuthRouterDeps) {
  const keys = secondFactorKeysFrom(deps.signingKeyFile);
  return router({
    signIn: publicProcedure
      .input(
        z.object({
          email: z.string().trim().min(1, 'Enter your email').max(320, 'Email is too long — 320 characters at most'),
          password: z.string().min(1, 'Enter your password').max(1024, 'Password is too long — 1024 characters at most'),
        }),
      )
      // A person with a second factor gets a ticket for it and no session yet (server/auth/README.md "Two-step sign-in").
      .output(
        z.union([
          z.object({ user: ZSessionUser }),
          z.object({ mfaRequired: z.literal(true), ticket: z.string(), methods: z.array(z.enum(SECOND_FACTOR_METHODS)) }),
        ]),
      )
      .mutation(async ({ ctx, input }) => {
        const limiter = deps.signInLimiter;
        // Counted before the (deliberately slow) password check, never after.
        await limiter.consume(ctx.clientIp, input.email);
        if (hasUnstorableCharacters(input.email)) {
          const email = formatEmailForTrail(input.email);
          await recordAuditEvent({
            actor: { userId: null, ip: ctx.clientIp },
            action: 'auth.sign_in_failed',
            subject: `email:${email}`,
            detail: { email, reason: 'invalid_email' },
          });
          throw new AppError('INVALID_INPUT', UNSTORABLE_EMAIL, { email: [UNSTORABLE_EMAIL] });
        }
        const user = await authenticateUser(input.email, input.password).catch(async (error: unknown) => {
          // Refused unchecked (the server was busy): that attempt must not lock the account.
          if (error instanceof HashingBusyError) await limiter.refund(ctx.clientIp, input.email);
          // A checked, wrong attempt goes to the trail (the limiter bounds how many there can be).
          else if (error instanceof AppError && error.code === 'UNAUTHORIZED') {
            const email = formatEmailForTrail(input.email);
            await recordAuditEvent({
              actor: { userId: null, ip: ctx.clientIp },
              action: 'auth.sign_in_failed',
              subject: `email:${email}`,
              // Why, for the directors who read the trail: the person was told only what they already knew.
              detail: { email, ...(error instanceof SignInRefused ? { reason: error.reason } : {}) },
            });
          }
          throw error;
        });
        await limiter.recordSuccess(ctx.clientIp, input.email);
        const second = await issueSignInTicket(user.id, 'password', deps.now());
        if (second) return { mfaRequired: true as const, ...second };
        await startSession(user.id, { method: 'password' }, signInPlaceOf(ctx), deps);
        return { user };
      }),

    /** The second step: a live ticket and one answer give the session signIn held back. */
    completeSignIn: publicProcedure
      .input(ZCompleteSignIn)
      .output(z.object({ user: ZSessionUser }))
      .mutation(async ({ ctx, input }) => {
        const { user, method } = await completeSecondStep(input, { limiter: deps.signInLimiter, keys, now: deps.now(), ip: ctx.clientIp });
        await startSession(user.id, { method }, signInPlaceOf(ctx), deps);
        return { user };
      }),

    signOut: enrolmentProcedure.output(z.object({ ok: z.literal(true) })).mutation(async ({ ctx }) => {
      if (ctx.sessionToken) {
        await deleteSession(ctx.sessionToken, deps.sessionSecret);
        endWatchedSession(ctx.sessionToken, deps.sessionSecret);
      }
      ctx.sessionCookie.clear();
      await recordAuditEvent({
        actor: { userId: ctx.user.id, ip: ctx.clientIp },
        action: 'auth.sign_out',
        subject: `user:${ctx.user.id}`,
      });
      return { ok: true as const };
    }),

    // `mustEnrol`: the firm's policy holds this person at enrolment (server/auth/README.md "Step-up and the firm's policy").
    me: publicProcedure
      .output(ZSessionUser.extend({ mustEnrol: z.boolean() }).nullable())
      .query(({ ctx }) => (ctx.user ? { ...ctx.user, mustEnrol: ctx.secondFactor.mustEnrol } : null)),

    /** Where the caller is signed in: their unexpired sessions, most recently active first. */
    sessions: enrolmentProcedure
      .output(z.array(ZSessionItem))
      .query(({ ctx }) => listSessions(ctx.user.id, sessionKeyOf(ctx.sessionToken, deps.sessionSecret), deps.now())),

    /** Signs out one of the caller's own sessions; the one in use too (then its cookie goes, as on sign-out). */
    revokeSession: enrolmentProcedure
      .input(z.object({ id: ZSessionPublicId }))
      .output(z.object({ ok: z.literal(true) }))
      .mutation(async ({ ctx, input }) => {
        const actor = { userId: ctx.user.id, ip: ctx.clientIp };
        const { current } = await revokeOwnSession(
          { publicId: input.id, currentKey: sessionKeyOf(ctx.sessionToken, deps.sessionSecret) },
          actor,
        );
        if (current) ctx.sessionCookie.clear();
        return { ok: true as const };
      }),

    /**
     * The person's own password: the current one first (counted as a sign-in attempt), then the new
     * one; every other session of theirs ends. An account change, so it asks for a fresh second factor too.
     */
    changePassword: stepUpProcedure
      .input(z.object({ currentPassword: z.string().min(1, 'Enter your current password').max(1024), newPassword: ZNewPassword }))
      .output(z.object({ sessionsEnded: z.number().int() }))
      .mutation(async ({ ctx, input }) => {
        await deps.signInLimiter.consume(ctx.clientIp, ctx.user.email);
        const result = await changeOwnPassword(
          { ...input, currentKey: sessionKeyOf(ctx.sessionToken, deps.sessionSecret) },
          { userId: ctx.user.id, ip: ctx.clientIp },
        );
        await deps.signInLimiter.recordSuccess(ctx.clientIp, ctx.user.email);
        return result;
      }),
  });
}
