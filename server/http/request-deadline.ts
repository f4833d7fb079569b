import type { Request, RequestHandler } from 'express';

/**
 * A request must have arrived whole within `ms` (Node's requestTimeout, which the server turns off
 * so that uploads can take as long as they keep moving): a client trickling a body to hold a
 * connection loses it. Uploads (`isExempt`) are held to their idle limit instead.
 *
 * The connection is closed without an answer, as Node did: the route is still reading the body
 * and answers when that fails, which must not collide with an answer written from here.
 */
export function enforceRequestDeadline(ms: number, isExempt: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    if (req.complete || isExempt(req)) return next();
    const timer = setTimeout(() => {
      if (req.complete || res.writableEnded) return;
      res.locals.cut = 'deadline';
      req.socket.destroy();
    }, ms);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
