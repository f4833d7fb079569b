import type { Request, RequestHandler, Response } from 'express';
import type { TReader } from '../core/visibility';
import type { User } from '../core/db/models/index';
import { sendHttpError } from '../http/http-errors';
import { MUST_ENROL_MESSAGE } from '../trpc/init';
import { NO_SECOND_FACTOR, type TSecondFactorState } from '../core/session-user';
import { findRequestUser } from './request-user';

type TSessionDeps = { sessionSecret: string; now: () => Date };

/**
 * The plain HTTP routes' session check (tRPC's procedures have their own, in trpc/init.ts): 401 in
 * the one error shape without a session, else the user on `res.locals` for `sessionUserOf`.
 */
export function requireSession(deps: TSessionDeps, message = 'Sign in first.'): RequestHandler {
  return async (req, res, next) => {
    try {
      const { user, secondFactor } = await findRequestUser(req, deps.sessionSecret, deps.now());
      if (!user) return sendHttpError(res, 401, message);
      // Held at enrolment by the firm's policy: no files, no exports (server/auth/README.md "Step-up and the firm's policy").
      if (secondFactor.mustEnrol) return sendHttpError(res, 403, MUST_ENROL_MESSAGE);
      res.locals.sessionUser = user;
      res.locals.secondFactor = secondFactor;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The signed-in user requireSession found for this request. */
export function sessionUserOf(res: Response): User {
  const user = res.locals.sessionUser as User | undefined;
  if (!user) throw new Error('requireSession must run before this route');
  return user;
}

/** The second factor of the session requireSession found (for a step-up a route asks for). */
export function secondFactorOf(res: Response): TSecondFactorState {
  return (res.locals.secondFactor as TSecondFactorState | undefined) ?? NO_SECOND_FACTOR;
}

/** The signed-in user as a reader of records, and the request they read through (server/access/README.md "Ethical walls"). */
export function readerOf(req: Request, res: Response): TReader {
  const user = sessionUserOf(res);
  return { id: user.id, role: user.role, ip: req.ip ?? null, path: `${req.method} ${req.baseUrl}${req.path}` };
}
