import type { RequestHandler } from 'express';
import type { TLogger } from '../logger';

/** One line per request: method, path (never the query string: it may carry tokens), status, ms. */
export function logRequests(logger: TLogger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    // Taken now: mounted routers rewrite req.url while they run.
    const path = req.originalUrl.split('?')[0];
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info({ method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}
