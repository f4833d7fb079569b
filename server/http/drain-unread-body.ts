import type { IncomingMessage, ServerResponse } from 'node:http';

/** How much more of a body already answered is read and dropped, and for how long, before the connection is closed anyway. */
export type TDrainLimits = { maxBytes: number; maxMs: number };

/** Past the largest upload's limit by a margin, and long enough for a slow link to send the rest of a photo. */
export const DRAIN_LIMITS: TDrainLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 };

const draining = new WeakSet<ServerResponse>();

/**
 * For an answer given before its request's body has arrived whole (an upload refused part-way, a
 * body over a limit): the answer goes out at once, marked `Connection: close` when still possible,
 * and the rest of the body is read and dropped; the answer is ended — after which Node closes the
 * connection — only once the body has ended, or `limits` are reached. Node closing a socket with
 * unread bytes resets it, and a client still sending then often gets "connection reset" (fetch:
 * "fetch failed") instead of the answer. A client that ends the connection itself stops the wait.
 *
 * Call it before the answer is ended; a request whose body is complete by then is answered as usual.
 * An answer with a Content-Length (set here when its headers are not yet written) is read whole at
 * once; one without is finished only when the drain is.
 */
export function drainBeforeClosing(req: IncomingMessage, res: ServerResponse, limits: TDrainLimits = DRAIN_LIMITS): void {
  if (req.complete || draining.has(res)) return;
  draining.add(res);
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  // The same wrapping of `end` as Express's compression middleware: what is written goes out now.
  res.end = ((...args: unknown[]) => {
    if (req.complete || res.writableEnded) return end(...args);
    const callback = typeof args.at(-1) === 'function' ? (args.pop() as () => void) : undefined;
    const [chunk, encoding] = args as [string | Buffer | Uint8Array | undefined, BufferEncoding | undefined];
    if (!res.headersSent) {
      res.setHeader('Connection', 'close');
      if (chunk !== undefined && !res.hasHeader('content-length'))
        res.setHeader('Content-Length', typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.byteLength);
    }
    if (chunk !== undefined) res.write(chunk, encoding ?? 'utf8');
    void dropRestOfBody(req, limits).then(() =>
      end(() => {
        // Cut off at the limits on a connection kept alive: Node would read on without end.
        if (!req.complete) req.socket.destroy();
        callback?.();
      }),
    );
    return res;
  }) as typeof res.end;
}

/** Reads and drops the body until it ends, the connection closes, or `limits` are reached. */
function dropRestOfBody(req: IncomingMessage, limits: TDrainLimits): Promise<void> {
  return new Promise((resolve) => {
    if (req.complete || req.destroyed) return resolve();
    let bytes = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', done);
      req.off('close', done);
      resolve();
    };
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) done();
    };
    const timer = setTimeout(done, limits.maxMs);
    timer.unref();
    // Whoever read the body (a multipart parser, tus's stream) is done with it: nothing may hold it back now.
    req.unpipe();
    req.removeAllListeners('data');
    req.on('data', count);
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}
