import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import { z, ZodError } from 'zod';
import { APP_ERROR_CODES, AppError } from '../errors';
import type { TContext } from './context';

function describeZodError(error: ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

const t = initTRPC.context<TContext>().create({
  transformer: superjson,
  isDev: false,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const { stack: _stack, ...base } = shape.data;
    let message = shape.message;
    let fieldErrors: Record<string, string[]> | undefined;
    if (cause instanceof ZodError) {
      message = describeZodError(cause);
      fieldErrors = z.flattenError(cause).fieldErrors as Record<string, string[]>;
    } else if (cause instanceof AppError) {
      fieldErrors = cause.fieldErrors;
    } else if (error.code === 'INTERNAL_SERVER_ERROR') {
      // Never leak internals (SQL, stack, driver messages) to the browser.
      message = 'Something went wrong on the server. Please try again.';
    }
    return { ...shape, message, data: { ...base, fieldErrors } };
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

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(mapAppErrors);

export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new AppError('UNAUTHORIZED', 'Please sign in.');
  return next({ ctx: { ...ctx, user: ctx.user } });
});

export const directorProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== 'director') throw new AppError('FORBIDDEN', 'Only directors can do this.');
  return next({ ctx });
});
