import { z } from 'zod';
import { hasUnstorableCharacters } from '../../shared/visible-text';
import { recordAuditEvent } from '../audit';
import { AppError } from '../core/errors';
import { authedProcedure, publicProcedure, router } from '../trpc/init';
import { HashingBusyError } from './password';
import { formatEmailForTrail, type SignInLimiter } from './sign-in-limiter';
import { endWatchedSession } from './session-watch';
import { createSession, deleteSession, sessionKeyOf } from './sessions';
import { listSessions, revokeOwnSession } from './manage-sessions';
import { ZSessionItem, ZSessionPublicId } from './session-item';
import { authenticateUser, SignInRefused } from './authenticate-user';

// No account's email has one (users.add takes only well-formed addresses), and PostgreSQL could not
// look one up or record it: refused as a mistake, not checked as a wrong password.
const UNSTORABLE_EMAIL =
  'The email has a character no email address can have (a null or a broken character, often pasted with it): type it again.';

const ZSessionUser = z.object({ id: z.number(), name: z.string(), email: z.string(), role: z.enum(['director', 'staff']) });

/** What signing in and out needs beyond the request: the app's limiter, the session secret, the clock. */
export type TAuthRouterDeps = { signInLimiter: SignInLimiter; sessionSecret: string; now: () => Date };

export function createAuthRouter(deps: TAuthRouterDeps) {
  return router({
    signIn: publicProcedure
      .input(
        z.object({
          email: z.string().trim().min(1, 'Enter your email').max(320, 'Email is too long — 320 characters at most'),
          password: z.string().min(1, 'Enter your password').max(1024, 'Password is too long — 1024 characters at most'),
        }),
      )
      .output(z.object({ user: ZSessionUser }))
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
        // A fresh session id on every sign-in (no fixation); the old one, if any, is dropped.
        if (ctx.sessionToken) await deleteSession(ctx.sessionToken, deps.sessionSecret);
        const origin = { ip: ctx.clientIp, userAgent: ctx.userAgent, method: 'password' as const };
        const { token, expiresAt } = await createSession(user.id, deps.sessionSecret, deps.now(), origin);
        ctx.sessionCookie.set(token, expiresAt);
        await recordAuditEvent({
          actor: { userId: user.id, ip: ctx.clientIp },
          action: 'auth.sign_in',
          subject: `user:${user.id}`,
          detail: { method: origin.method },
        });
        return { user };
      }),

    signOut: authedProcedure.output(z.object({ ok: z.literal(true) })).mutation(async ({ ctx }) => {
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

    me: publicProcedure.output(ZSessionUser.nullable()).query(({ ctx }) => ctx.user),

    /** Where the caller is signed in: their unexpired sessions, most recently active first. */
    sessions: authedProcedure
      .output(z.array(ZSessionItem))
      .query(({ ctx }) => listSessions(ctx.user.id, sessionKeyOf(ctx.sessionToken, deps.sessionSecret), deps.now())),

    /** Signs out one of the caller's own sessions; the one in use too (then its cookie goes, as on sign-out). */
    revokeSession: authedProcedure
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
  });
}
