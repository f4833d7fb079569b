import type { RequestHandler } from 'express';
import type { TLogger } from '../core/logger';

/**
 * One line per request: method, path (never the query string: it may carry tokens), status, ms.
 * A live stream's line, written when it ends, adds how it ended and the server's open and dropped
 * stream counts then (`res.locals.liveStream`, set by LiveStreams).
 *
 * A request whose connection closed before its answer was complete says so (`aborted`), with the
 * status only if one was sent: an answer never sent is not a 200. When the server itself cut it
 * (an idle upload, a body past its deadline), `cut` says why (`res.locals.cut`); one it cut with the
 * connection (`res.locals.unanswered`) is aborted with no status, whatever the handler wrote after.
 */
export function logRequests(logger: TLogger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    // Taken now: mounted routers rewrite req.url while they run.
    const path = req.originalUrl.split('?')[0];
    let logged = false;
    // 'close' as well: a stream cut short (a dropped live stream, a client gone) never finishes.
    const log = () => {
      if (logged) return;
      logged = true;
      const ms = Math.round((Number(process.hrtime.bigint() - started) / 1e6) * 10) / 10;
      // A connection the server cut itself (an idle upload) carries nothing written after: what the
      // handler answered as it unwound reached no one, however far Node took it.
      const unanswered = res.locals.unanswered === true;
      const finished = res.writableFinished && !unanswered;
      const cut = res.locals.cut as string | undefined;
      logger.info(
        {
          method: req.method,
          path,
          status: finished || (res.headersSent && !unanswered) ? res.statusCode : null,
          ms,
          ...(finished ? {} : { aborted: true }),
          ...(cut ? { cut } : {}),
          ...res.locals.liveStream,
        },
        'request',
      );
    };
    res.on('finish', log);
    res.on('close', () => process.nextTick(log)); // after the stream's own close handler has said how it ended
    next();
  };
}
