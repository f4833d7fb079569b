import type { Request, RequestHandler } from 'express';
import { sendHttpError } from './http-errors';

/** A browser's cross-site request says so in Origin; no Origin (not a browser) passes here. */
export function isCrossSite(req: Request, site: string): boolean {
  const origin = req.headers.origin;
  return origin !== undefined && origin !== site && origin !== `${req.protocol}://${req.get('host')}`;
}

/**
 * Cross-site request forgery guard for tRPC calls: a browser form on another site cannot send
 * `application/json`, and every browser sends Origin on a cross-site POST. Non-browser clients
 * (no Origin) still need a valid session for anything that matters.
 */
export function requireSameOriginJson(siteUrl: string): RequestHandler {
  const site = new URL(siteUrl).origin;
  return (req, res, next) => {
    // A link or image on another site is a top-level or subresource GET: some queries record what
    // they did (a retention preview, a verification of the trail), so none is answered to another site.
    if (req.headers['sec-fetch-site'] === 'cross-site') return sendHttpError(res, 403, 'Cross-site requests are not allowed.');
    if (req.method !== 'POST') return next();
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      return sendHttpError(res, 415, 'Requests must be sent as application/json.');
    }
    if (isCrossSite(req, site)) {
      return sendHttpError(res, 403, 'Cross-site requests are not allowed.');
    }
    next();
  };
}

/** Refuses a browser's request from another site before anything else is read (uploads, exports). */
export function requireSameSite(siteUrl: string, message: string): RequestHandler {
  const site = new URL(siteUrl).origin;
  return (req, res, next) => (isCrossSite(req, site) ? sendHttpError(res, 403, message) : next());
}
