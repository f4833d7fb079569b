import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import { z, ZodError, ZodRealError } from 'zod';
import { APP_ERROR_CODES, AppError, type TAppErrorHints } from '../core/errors';
import type { TReader } from '../core/visibility';
import type { TContext } from './context';

function describeZodError(error: ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
}

const t = initTRPC.context<TContext>().create({
  transformer: superjson,
  isDev: false,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const { stack: _stack, ...base } = shape.data;
    let message = shape.message;
    let fieldErrors: Record<string, string[]> | undefined;
    let hints: TAppErrorHints = {};
    if (cause instanceof ZodError) {
      message = describeZodError(cause);
      fieldErrors = z.flattenError(cause).fieldErrors;
    } else if (cause instanceof AppError) {
      fieldErrors = cause.fieldErrors;
      hints = cause.hints ?? {};
    } else if (error.code === 'INTERNAL_SERVER_ERROR') {
      // Never leak internals (SQL, stack, driver messages) to the browser.
      message = 'Something went wrong on the server. Please try again.';
    }
    return { ...shape, message, data: { ...base, fieldErrors, ...hints } };
  },
});

/** Turns AppErrors thrown by plain functions into tRPC errors with the mapped code. */
const mapAppErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: APP_ERROR_CODES[cause.code], message: cause.message, cause });
  }
  return result;
});

/** A rule that needs the request, not only the input: a phone number is read in the firm's country. */
export type TContextRule = (input: unknown, ctx: TContext) => { path: PropertyKey[]; message: string }[];

/**
 * Runs `schema` and `rule` together on the raw input, ahead of the procedure's own `.input(schema)`,
 * and refuses it with every issue of both at once: a person fixing a form should not find the
 * number's error only after correcting the name.
 */
export const checkInputTogether = (schema: z.ZodType, rule: TContextRule) =>
  t.middleware(async ({ ctx, getRawInput, next }) => {
    const input = await getRawInput();
    const parsed = schema.safeParse(input);
    const issues = parsed.success ? [] : [...parsed.error.issues];
    const reported = new Set(issues.map((issue) => issue.path.map(String).join('.')));
    for (const extra of rule(input, ctx)) {
      if (!reported.has(extra.path.map(String).join('.'))) issues.push({ code: 'custom', path: extra.path, message: extra.message, input });
    }
    // ZodRealError, not ZodError: zod 4's plain ZodError is no Error, and tRPC would wrap it beyond recognition.
    if (issues.length) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Input validation failed', cause: new ZodRealError(issues) });
    return next();
  });

export const router = t.router;
/** Two routers' procedures under one name (a feature adds to `chat` or `settings` from its own file). */
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(mapAppErrors);

/**
 * Signed in, whatever the firm's policy says: only what a person needs to set up a second factor
 * and to leave (server/auth/README.md "Step-up and the firm's policy").
 */
export const enrolmentProcedure = publicProcedure.use(({ ctx, path, next }) => {
  if (!ctx.user) throw new AppError('UNAUTHORIZED', 'Please sign in.');
  // Who reads, and through which procedure: every read of records is answered for this reader (server/access/README.md "Ethical walls").
  const reader: TReader = { id: ctx.user.id, role: ctx.user.role, ip: ctx.clientIp, path };
  return next({ ctx: { ...ctx, user: ctx.user, reader } });
});

export const MUST_ENROL_MESSAGE = 'Your firm requires two-step sign-in: set up an authenticator app or a passkey first.';

/** Signed in, and not someone the firm's policy holds at enrolment until they set up a second factor. */
export const authedProcedure = enrolmentProcedure.use(({ ctx, next }) => {
  if (ctx.secondFactor.mustEnrol) throw new AppError('FORBIDDEN', MUST_ENROL_MESSAGE, undefined, { enrol: true });
  return next({ ctx });
});

export const directorProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== 'director') throw new AppError('FORBIDDEN', 'Only directors can do this.');
  return next({ ctx });
});

/** How recent a second factor's proof must be for a step-up procedure. */
export const STEP_UP_WINDOW_MS = 10 * 60 * 1000;
export const REAUTH_MESSAGE = "Confirm it's you: enter a code from your authenticator app (or use a passkey), then try again.";

/** Whether the session proved its second factor within the step-up window (false when it has none to prove). */
export const steppedUp = (ctx: TContext) => {
  const proven = ctx.secondFactor.provenAt;
  return proven !== null && ctx.requestedAt.getTime() - proven.getTime() < STEP_UP_WINDOW_MS;
};

/**
 * The changes that matter most ask a person with a second factor to have proven it within 10
 * minutes; someone without one has nothing to step up with (the policy is what makes them enrol).
 */
const requireStepUp = t.middleware(({ ctx, next }) => {
  if (ctx.secondFactor.has && !steppedUp(ctx)) throw new AppError('FORBIDDEN', REAUTH_MESSAGE, undefined, { reauth: true });
  return next();
});

export const stepUpProcedure = authedProcedure.use(requireStepUp);
export const stepUpDirectorProcedure = directorProcedure.use(requireStepUp);
