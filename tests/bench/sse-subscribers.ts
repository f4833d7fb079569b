import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

// The subscriber side of the live-update benchmark (live-updates.ts), run as its own process so
// that the server's CPU and memory are measured alone. It opens one SSE stream per session cookie
// (GET /trpc/inbox.onChange, each its own HTTP connection, as N browsers would) and records when
// each delivery's marker first reaches each stream. It talks to the benchmark over IPC (advanced
// serialisation, so the arrival times travel as one Float64Array).
//
// Kept cheap, so that 500 streams at 200 deliveries/s measure the server and not this process:
// frames are never parsed. The raw bytes of whole frames are scanned for the marker
// `<prefix><n><end>` (the message body), for `"resync":true` and for `event: connected`; a frame cut
// by a chunk boundary waits for the rest. Its own event-loop delay is reported, so a run can tell whether it kept up.
// (The benchmark imports only this file's types: importing it would run it.)

export type TToSubscribers =
  /** Open one stream per cookie; a delivery's body is `prefix`, its number (0 … deliveries - 1) and `end` (one character). */
  | { type: 'open'; url: string; cookies: string[]; prefix: string; end: string; deliveries: number }
  /** How many (delivery, subscriber) arrivals and dropped streams so far. */
  | { type: 'count' }
  /** Every arrival time (NaN: never arrived), resync frames and dropped connections per subscriber. */
  | { type: 'collect' }
  /** Close every stream and exit. */
  | { type: 'close' };

export type TFromSubscribers =
  | { type: 'ready' }
  | { type: 'connected' }
  | { type: 'failed'; error: string }
  /** `lastWords`: the last bytes of the first stream that ended (tRPC answers a refused session 200 and `connected`, then an error frame). */
  | { type: 'count'; arrived: number; drops: number; lastWords: string | null }
  /** `arrivals[subscriber * deliveries + n]`: epoch ms (performance.timeOrigin + performance.now()). */
  | { type: 'result'; arrivals: Float64Array; resyncs: number[]; drops: number[]; loopDelayP99Ms: number; loopDelayMaxMs: number };

const CONNECTED = Buffer.from('event: connected');
const RESYNC = Buffer.from('"resync":true');
const FRAME_END = Buffer.from('\n\n');
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

let closing = false;
const subscribers: ReturnType<typeof openSubscriber>[] = [];
let arrived = 0;
let firstLastWords: string | null = null;
/** This process's event-loop delay, from the first arrival on (the measured window). */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });

function send(message: TFromSubscribers) {
  process.send!(message);
}

/** One stream: its arrivals are its own slice of the shared array. */
function openSubscriber(options: {
  url: string;
  cookie: string;
  prefix: Buffer;
  end: number;
  arrivals: Float64Array;
  onConnected: () => void;
  onFailed: (error: string) => void;
}) {
  const { prefix, end, arrivals } = options;
  // The bytes after the last whole frame, for the next chunk: a marker never spans two frames, so
  // only whole frames are scanned, each once, and a chunk that ends on a frame (the usual case:
  // the server writes whole frames) is scanned where it lies, never copied.
  let partial: Buffer = Buffer.alloc(0);
  let last: Buffer = partial; // the latest bytes, for the diagnosis of a stream that ends
  let connected = false;
  let ended = false;
  const state = { resyncs: 0, drops: 0 };

  const onChunk = (chunk: Buffer) => {
    const at = performance.timeOrigin + performance.now();
    const buf = partial.length ? Buffer.concat([partial, chunk]) : chunk;
    const cut = buf.lastIndexOf(FRAME_END);
    if (cut === -1) {
      partial = buf;
      return;
    }
    const whole = buf.subarray(0, cut + FRAME_END.length);
    partial = Buffer.from(buf.subarray(cut + FRAME_END.length));
    if (!connected && whole.includes(CONNECTED)) {
      connected = true;
      options.onConnected();
    }
    for (let i = whole.indexOf(RESYNC); i !== -1; i = whole.indexOf(RESYNC, i + 1)) state.resyncs++;
    for (let i = whole.indexOf(prefix); i !== -1; i = whole.indexOf(prefix, i + 1)) {
      let j = i + prefix.length;
      let n = 0;
      while (j < whole.length && whole[j]! >= DIGIT_0 && whole[j]! <= DIGIT_9) n = n * 10 + whole[j++]! - DIGIT_0;
      if (whole[j] !== end || j === i + prefix.length || n >= arrivals.length) continue;
      // The first arrival only: a later frame may carry the same record again (an update of it).
      if (Number.isNaN(arrivals[n]!)) {
        arrivals[n] = at;
        if (arrived++ === 0) loopDelay.reset();
      }
    }
    last = whole;
  };

  const onEnd = (error?: string) => {
    if (ended) return;
    ended = true;
    if (closing) return;
    if (!connected) return options.onFailed(error ?? 'the stream ended before it connected');
    state.drops++;
    firstLastWords ??= last.subarray(-300).toString().replace(/\n+/g, ' ');
  };

  const request = http.get(options.url, { agent: false, headers: { cookie: options.cookie, accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      res.resume();
      onEnd(`answered ${res.statusCode}`);
      return;
    }
    res.on('data', onChunk);
    res.on('error', (error) => onEnd(error.message));
    res.on('close', () => onEnd());
  });
  request.on('error', (error) => onEnd(error.message));
  return { state, destroy: () => request.destroy() };
}

function openAll(message: Extract<TToSubscribers, { type: 'open' }>): Float64Array {
  loopDelay.enable();
  const all = new Float64Array(message.cookies.length * message.deliveries).fill(NaN);
  const prefix = Buffer.from(message.prefix);
  let connected = 0;
  let failed = false;
  for (const [i, cookie] of message.cookies.entries()) {
    subscribers.push(
      openSubscriber({
        url: message.url,
        cookie,
        prefix,
        end: message.end.charCodeAt(0),
        arrivals: all.subarray(i * message.deliveries, (i + 1) * message.deliveries),
        onConnected: () => {
          if (++connected === message.cookies.length) send({ type: 'connected' });
        },
        onFailed: (error) => {
          if (failed) return;
          failed = true;
          send({ type: 'failed', error: `subscriber ${i}: ${error}` });
        },
      }),
    );
  }
  return all;
}

let arrivals: Float64Array = new Float64Array(0);
process.on('message', (message: TToSubscribers) => {
  if (message.type === 'open') arrivals = openAll(message);
  else if (message.type === 'count')
    send({ type: 'count', arrived, drops: subscribers.reduce((sum, s) => sum + s.state.drops, 0), lastWords: firstLastWords });
  else if (message.type === 'collect') {
    const [loopDelayP99Ms, loopDelayMaxMs] = [loopDelay.percentile(99) / 1e6, loopDelay.max / 1e6];
    send({
      type: 'result',
      arrivals,
      resyncs: subscribers.map((s) => s.state.resyncs),
      drops: subscribers.map((s) => s.state.drops),
      loopDelayP99Ms,
      loopDelayMaxMs,
    });
  } else if (message.type === 'close') {
    closing = true;
    for (const s of subscribers) s.destroy();
    process.disconnect();
  }
});
// The benchmark went away (failed, or was interrupted): nothing to report to.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
