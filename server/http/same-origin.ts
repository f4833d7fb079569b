import type { Request, RequestHandler } from 'express';

/** A browser's cross-site request says so in Origin; no Origin (not a browser) passes here. */
export function isCrossSite(req: Request, site: string): boolean {
  const origin = req.headers.origin;
  return origin !== undefined && origin !== site && origin !== `${req.protocol}://${req.get('host')}`;
}

/**
 * Cross-site request forgery guard for tRPC mutations: a browser form on another site cannot send
 * `application/json`, and every browser sends Origin on a cross-site POST. Non-browser clients
 * (no Origin) still need a valid session for anything that matters.
 */
export function requireSameOriginJson(siteUrl: string): RequestHandler {
  const site = new URL(siteUrl).origin;
  return (req, res, next) => {
    if (req.method !== 'POST') return next();
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      res.status(415).json({ error: { message: 'Requests must be sent as application/json.' } });
      return;
    }
    if (isCrossSite(req, site)) {
      res.status(403).json({ error: { message: 'Cross-site requests are not allowed.' } });
      return;
    }
    next();
  };
}
