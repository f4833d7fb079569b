import type { IncomingMessage } from 'node:http';

/**
 * Calls `onIdle` once when no byte of the request has arrived for `idleMs`; stops by itself when
 * the body is complete or the connection closes, or when the returned function is called.
 *
 * It watches the socket's byte count rather than the body's 'data' events: adding a reader to the
 * body before the route's own would start it flowing and lose bytes. Time the server itself holds
 * the body back (a slow disk or database pausing the stream) is not counted against the client.
 */
export function watchIdleUpload(req: IncomingMessage, idleMs: number, onIdle: () => void): () => void {
  const socket = req.socket;
  let lastBytes = socket.bytesRead;
  let lastMoved = Date.now();
  const check = () => {
    if (req.complete || socket.destroyed) return stop();
    const bytes = socket.bytesRead;
    if (bytes !== lastBytes || req.readableFlowing === false || socket.isPaused()) {
      lastBytes = bytes;
      lastMoved = Date.now();
      return;
    }
    if (Date.now() - lastMoved >= idleMs) {
      stop();
      onIdle();
    }
  };
  // Checked a few times per idle period: a stalled upload ends within a quarter of it past the limit.
  const timer = setInterval(check, Math.max(10, Math.min(1_000, Math.floor(idleMs / 4))));
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    req.off('close', stop);
  };
  req.once('close', stop);
  return stop;
}

/** The sentence for an upload ended by the idle limit. */
export function idleMessage(idleMs: number): string {
  const seconds = Math.max(1, Math.round(idleMs / 1000));
  return `Nothing arrived for ${seconds} second${seconds === 1 ? '' : 's'}: the upload was stopped. Try again.`;
}
