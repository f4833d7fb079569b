import type { RequestHandler } from 'express';
import { sendHttpError } from './http-errors';

/** A tRPC request body larger than this is refused with 413 before it is read further. */
export const TRPC_MAX_BODY_BYTES = 100 * 1024;
/** The most calls in one batched request (the SPA's batch link uses the same). */
export const TRPC_MAX_BATCH = 20;

/**
 * Guards in front of the tRPC handler: answers are never cached (they carry private data), and a
 * sign-in call cannot ride in a batch (a batch of guesses would share one request's limits and
 * hold the password hashing for everyone else).
 */
export function guardTrpcRequests(): RequestHandler {
  return (req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    let procedures: string[];
    try {
      procedures = decodeURIComponent(req.path.replace(/^\//, '')).split(',');
    } catch {
      return sendHttpError(res, 400, 'The procedure name in the address is not valid percent-encoding.');
    }
    if (procedures.length > 1 && procedures.some((p) => p.startsWith('auth.'))) {
      return sendHttpError(res, 400, 'auth procedures cannot be batched; send each on its own.');
    }
    next();
  };
}

const ALLOWED_METHODS = ['GET', 'HEAD', 'POST'];

/** Methods this server never answers (TRACE, PUT, …) get 405 with the ones it does. */
export const refuseUnknownMethods: RequestHandler = (req, res, next) => {
  if (ALLOWED_METHODS.includes(req.method)) return next();
  res.setHeader('Allow', ALLOWED_METHODS.join(', '));
  sendHttpError(res, 405, `This server answers ${ALLOWED_METHODS.join(', ')} only.`);
};
