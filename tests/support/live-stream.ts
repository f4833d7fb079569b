import http, { type IncomingMessage } from 'node:http';

// A live stream (inbox.onChange) as a test reads it: the raw SSE frames, parsed, over plain HTTP,
// so the wire itself is what is checked.

export type TFrame = { event?: string; id?: string; data?: string };
export type TLiveStream = {
  res: IncomingMessage;
  frames: TFrame[];
  /** Resolves with the first frame (from `from` on) that `match` accepts. */
  waitFor: (match: (frame: TFrame) => boolean, ms?: number, from?: number) => Promise<TFrame>;
  /** Resolves once `holds` is true of the frames received. */
  until: (holds: (frames: TFrame[]) => boolean, ms?: number) => Promise<void>;
  ended: Promise<void>;
  /** Starts reading (a stream opened with `read: false` is a browser that stopped reading). */
  read: () => void;
  close: () => void;
};

/** Opens inbox.onChange (or `path`) over plain HTTP and parses its SSE frames as they come. */
export function openLiveStream(
  baseUrl: string,
  cookie: string | null,
  options: { read?: boolean; headers?: Record<string, string>; query?: string; path?: string } = {},
): Promise<TLiveStream> {
  return new Promise((resolve, reject) => {
    const url = `${baseUrl}${options.path ?? '/trpc/inbox.onChange'}${options.query ?? ''}`;
    const headers = { accept: 'text/event-stream', ...(cookie ? { cookie } : {}), ...options.headers };
    const req = http.get(url, { headers, agent: false }, (res) => {
      const frames: TFrame[] = [];
      const waiters = new Set<() => void>();
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString('utf8');
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          if (!block.trim()) continue;
          const frame: TFrame = {};
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            const field = line.slice(0, colon);
            const value = line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event' || field === 'id' || field === 'data') frame[field] = value;
          }
          frames.push(frame);
        }
        for (const wake of waiters) wake();
      };
      const ended = new Promise<void>((done) => {
        res.once('end', done);
        res.once('close', done);
      });
      const stream: TLiveStream = {
        res,
        frames,
        ended,
        read: () => res.on('data', onData),
        close: () => req.destroy(),
        until: (holds, ms = 5_000) =>
          new Promise((done, fail) => {
            const check = () => {
              if (!holds(frames)) return false;
              waiters.delete(check);
              clearTimeout(timer);
              done();
              return true;
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`not so within ${ms} ms; got ${frames.length} frames: ${JSON.stringify(frames.slice(-3)).slice(0, 400)}`));
            }, ms);
            if (!check()) waiters.add(check);
          }),
        waitFor: async (match, ms = 5_000, from = 0) => {
          await stream.until((all) => all.slice(from).some(match), ms);
          return frames.slice(from).find(match)!;
        },
      };
      if (options.read !== false) stream.read();
      resolve(stream);
    });
    req.once('error', reject);
  });
}

export const isConnected = (frame: TFrame) => frame.event === 'connected';

/** 'ended' when the stream ends within `ms`, else 'still open'. */
export const endsWithin = (stream: TLiveStream, ms: number) =>
  Promise.race([stream.ended.then(() => 'ended' as const), new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms))]);
