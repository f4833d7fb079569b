import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { APP_ERROR_CODES, AppError } from '../core/errors';
import type { TLogger } from '../core/logger';
import { drainBeforeClosing } from './drain-unread-body';

/**
 * Every Express route's error body, beside tRPC's own: the code words a tRPC error carries (so the
 * SPA reads one vocabulary whichever way it asked) and a sentence for the person. The webhook is
 * the provider's and keeps the provider's shape (server/webhook/README.md "The inbound webhook").
 */
export type THttpErrorBody = { error: { code: string; message: string } };

// tRPC's status table read backwards, plus the two statuses tRPC has no word for.
const CODE_OF_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  410: 'GONE',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

export function httpErrorBody(status: number, message: string): THttpErrorBody {
  return { error: { code: CODE_OF_STATUS[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST'), message } };
}

/**
 * Answers with the error body. A request body still arriving (an upload refused part-way) is read
 * and dropped before the connection closes (drain-unread-body.ts): closed at once, the browser
 * still sending is often told "connection reset" instead of reading the answer.
 */
export function sendHttpError(res: Response, status: number, message: string): void {
  if (res.headersSent) return;
  drainBeforeClosing(res.req, res);
  res.status(status).json(httpErrorBody(status, message));
}

/** What no route answered: JSON, never Express's HTML page. */
export const answerNotFound: RequestHandler = (_req, res) => sendHttpError(res, 404, 'There is nothing at this address.');

/**
 * The last handler: an AppError as tRPC would map it; a refused request (a bad body, too large)
 * with its status; anything else a 500 whose cause goes to the log by name only.
 */
export function handleHttpErrors(logger: TLogger): ErrorRequestHandler {
  return (err: { status?: unknown; name?: string; message?: string }, _req, res, _next) => {
    // With the status tRPC would answer the same AppError with.
    if (err instanceof AppError)
      return sendHttpError(res, getHTTPStatusCodeFromError(new TRPCError({ code: APP_ERROR_CODES[err.code] })), err.message);
    const status = typeof err.status === 'number' && err.status >= 400 && err.status < 600 ? err.status : 500;
    if (status >= 500) logger.error({ error: err.name }, 'unhandled request error');
    sendHttpError(res, status, status >= 500 ? 'Something went wrong on the server; try again.' : 'The request was not understood.');
  };
}
