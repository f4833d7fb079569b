import type { Response } from 'express';
import { setImmediate as nextTurn, setTimeout as delay } from 'node:timers/promises';
import superjson from 'superjson';
import { z } from 'zod';
import type { ChatEvents, TChatChange } from '../events';
import type { TThreadItem } from '../inbox';
import type { TLogger } from '../core/logger';
import type { TViewer } from '../core/visibility';
import { boundItemHistory } from './bound-frame';
import { findHiddenRecords } from './hidden-records';

// Every open inbox holds one server-sent-event stream (inbox.onChange), hundreds in a firm. This is
// their fan-out: a change is turned into bytes once — one frame per distinct set of records its
// viewers may see (server/access/README.md "Ethical walls": one query asks the walls about every stream's person at
// once, and streams are grouped by what they may see) — and the same bytes are written to every
// stream of a group. Changes go out one after another, in the order they came. The frames
// are tRPC's SSE wire format, so the SPA's httpSubscriptionLink (and any tRPC client) reads them
// as the `inbox.onChange` subscription; the procedure in live-router.ts stays the typed contract.

export type TChange = TChatChange<TThreadItem>;
/**
 * What one stream is sent: a change as it came, except that new notifications (`notify`, a list of
 * people) reach only their own people's streams, as `{notifications: true}`.
 */
export type TStreamChange = Exclude<TChange, { notify: number[] }> | { notifications: true };

/** `inbox.onChange`'s input: tRPC's link adds the last event id it saw when it reconnects. */
export const ZLiveInput = z.object({ lastEventId: z.string().max(40).nullish() }).optional();
export type TStreamEnd = 'client' | 'session' | 'behind' | 'shutdown';

export type TLiveStreamOptions = {
  /** A ping this often keeps an idle stream open through proxies; the browser reconnects after three missed. */
  heartbeatMs?: number;
  /** Bytes a stream may have waiting in this server before it counts as too far behind and is dropped. */
  maxBufferedBytes?: number;
  /** How long a dropped stream gets to take its last bytes (the resync) before its connection is cut. */
  dropGraceMs?: number;
  /** Streams one person may hold open at once (tabs, devices); one more is refused (429). */
  maxStreamsPerUser?: number;
  /** Streams this server holds at once; one more is refused (503), well before file descriptors run out. */
  maxStreams?: number;
  /** The pace of rounds of writes: the next starts no sooner than this many ms per open stream after the last began. */
  roundMsPerStream?: number;
  /** Which records each person may not see (tests pass their own); the app asks the walls (`findHiddenRecords`). */
  findHidden?: (viewerIds: number[], recordIds: number[]) => Promise<Map<number, Set<number>>>;
};

type TStream = { res: Response; viewer: TViewer; onEnd: () => void };
type TConsumer = { viewer: TViewer; take: (id: number, change: TStreamChange) => void };

const HEARTBEAT_MS = 15_000;
const MAX_BUFFERED_BYTES = 1024 * 1024;
const DROP_GRACE_MS = 5_000;
const MAX_STREAMS_PER_USER = 20;
const MAX_STREAMS = 5_000;
/**
 * A round of writes to every stream costs the server (and every browser) about the same whatever it
 * carries, so rounds are paced by how many streams there are: the next starts no sooner than this
 * much per stream after the last began (2,000 streams: 100 ms; 50 streams: 2.5 ms).
 * What arrives meanwhile goes in the next round, so under load rounds grow in size, not in number.
 */
const ROUND_MS_PER_STREAM = 0.05;
/** Streams written to in one turn of the event loop. */
const STREAMS_PER_SLICE = 250;
/** The browser's wait before reconnecting a stream that ended (server restart, drop). */
const RETRY_MS = 2_000;
/** In-process subscribers (createCaller) keep at most this many changes before they are told to resync. */
const MAX_QUEUED_CHANGES = 1_000;

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-store, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
} as const;

const NOTIFICATIONS_CHANGE: TStreamChange = { notifications: true };
const PING_FRAME = Buffer.from('event: ping\ndata: \n\n');
/** tRPC's "the subscription is over": the SPA then asks whether anyone is still signed in. */
const RETURN_FRAME = Buffer.from('event: return\ndata: \n\n');

function dataFrame(id: number, change: TStreamChange): Buffer {
  // JSON never holds a raw line break, so the payload is one `data:` line.
  return Buffer.from(`id: ${id}\ndata: ${JSON.stringify(superjson.serialize(change))}\n\n`);
}

export class LiveStreams {
  private readonly streams = new Set<TStream>();
  /** In-process subscribers (changesFor). */
  private readonly consumers = new Set<TConsumer>();
  /** Changes waiting for the walls' answer, in order; while one question is out, the next ones gather here. */
  private readonly pending: { id: number; change: TChange }[] = [];
  private fanning = false;
  /** When the next round of writes may start (performance.now()). */
  private nextRoundAt = 0;
  private readonly perUser = new Map<number, number>();
  private readonly closing = new AbortController();
  private sequence = 0;
  private dropped = 0;
  private unsubscribe: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly heartbeatMs: number;
  private readonly maxBufferedBytes: number;
  private readonly dropGraceMs: number;
  private readonly maxStreamsPerUser: number;
  private readonly maxStreams: number;
  private readonly roundMsPerStream: number;
  private readonly findHidden: (viewerIds: number[], recordIds: number[]) => Promise<Map<number, Set<number>>>;

  constructor(
    private readonly events: ChatEvents<TThreadItem>,
    private readonly logger: TLogger,
    options: TLiveStreamOptions = {},
  ) {
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
    this.dropGraceMs = options.dropGraceMs ?? DROP_GRACE_MS;
    this.maxStreamsPerUser = options.maxStreamsPerUser ?? MAX_STREAMS_PER_USER;
    this.maxStreams = options.maxStreams ?? MAX_STREAMS;
    this.roundMsPerStream = options.roundMsPerStream ?? ROUND_MS_PER_STREAM;
    this.findHidden = options.findHidden ?? findHiddenRecords;
  }

  start(): void {
    this.heartbeat = setInterval(() => this.ping(), this.heartbeatMs).unref();
  }

  /** Ends every stream without tRPC's `return`, so browsers reconnect (to this server when it is back). */
  close(): void {
    clearInterval(this.heartbeat);
    this.closing.abort();
    for (const stream of [...this.streams]) this.end(stream, 'shutdown');
    this.listenWhileWatched();
  }

  /**
   * Listens to the changes only while someone is watching: with nobody's inbox open, a stored
   * message costs no load of its record at all.
   */
  private listenWhileWatched(): void {
    const watched = this.accepting && this.streams.size + this.consumers.size > 0;
    if (watched && !this.unsubscribe) this.unsubscribe = this.events.subscribe((change) => this.broadcast(change));
    if (!watched && this.unsubscribe) {
      this.unsubscribe();
      this.unsubscribe = undefined;
    }
  }

  /** Open streams, streams dropped for falling behind, and the last change's event id. */
  get stats(): { streams: number; dropped: number; sequence: number } {
    return { streams: this.streams.size, dropped: this.dropped, sequence: this.sequence };
  }

  /** False once closed (the server is stopping). */
  get accepting(): boolean {
    return !this.closing.signal.aborted;
  }

  /**
   * A stream asked for while the server stops (on a connection still open to it): answered as a
   * stream that ends at once — never an error status, which would end a browser's EventSource for
   * good — so the browser comes back after `retry` to whichever server is then up.
   */
  turnAway(res: Response): void {
    res.writeHead(200, SSE_HEADERS);
    res.end(`retry: ${RETRY_MS}\n\n`);
  }

  /** Why `viewer` may not open one more stream now, or null. */
  refusalFor(viewer: TViewer): { status: 429 | 503; message: string } | null {
    if ((this.perUser.get(viewer.id) ?? 0) >= this.maxStreamsPerUser) {
      return { status: 429, message: `You have ${this.maxStreamsPerUser} live pages open already; close some tabs and reload this one.` };
    }
    if (this.streams.size >= this.maxStreams)
      return { status: 503, message: 'The server is holding as many live pages as it can; try again shortly.' };
    return null;
  }

  /**
   * Answers `res` with a live stream for `viewer`. `resumed`: the browser is reconnecting (it sent
   * the last event id it saw), so what happened while it was away was missed: it is told to resync
   * first. Returns a function that ends the stream because its session ended.
   */
  open(res: Response, viewer: TViewer, options: { resumed: boolean; onEnd?: () => void }): () => void {
    const stream: TStream = { res, viewer, onEnd: options.onEnd ?? (() => undefined) };
    // Gone while its session was looked up: its 'close' has fired already and would never come again.
    if (res.destroyed || !res.socket || res.socket.destroyed) {
      stream.onEnd();
      return () => undefined;
    }
    res.writeHead(200, SSE_HEADERS);
    // The id on `connected` makes even a stream that never carried a change come back as resumed.
    const client = { reconnectAfterInactivityMs: this.heartbeatMs * 3 };
    res.write(`retry: ${RETRY_MS}\nid: ${this.sequence}\nevent: connected\ndata: ${JSON.stringify(client)}\n\n`);
    if (options.resumed) res.write(dataFrame(this.sequence, { resync: true }));
    this.streams.add(stream);
    this.perUser.set(viewer.id, (this.perUser.get(viewer.id) ?? 0) + 1);
    this.listenWhileWatched();
    res.on('close', () => this.end(stream, 'client'));
    return () => this.end(stream, 'session');
  }

  /** The same changes for a caller inside this process (createCaller): bounded, resync when it lags. */
  async *changesFor(
    viewer: TViewer,
    until: AbortSignal | undefined,
    resumed = false,
  ): AsyncGenerator<{ id: number; change: TStreamChange }> {
    const signal = until ? AbortSignal.any([until, this.closing.signal]) : this.closing.signal;
    const queue: { id: number; change: TStreamChange }[] = resumed ? [{ id: this.sequence, change: { resync: true } }] : [];
    let wake: (() => void) | undefined;
    const consumer: TConsumer = {
      viewer,
      take: (id, part) => {
        if (queue.length >= MAX_QUEUED_CHANGES) queue.splice(0, queue.length, { id, change: { resync: true } });
        else queue.push({ id, change: part });
        wake?.();
      },
    };
    this.consumers.add(consumer);
    this.listenWhileWatched();
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    try {
      while (!signal.aborted) {
        const next = queue.shift();
        if (next) {
          yield next;
          continue;
        }
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), stopped]);
        wake = undefined;
      }
    } finally {
      this.consumers.delete(consumer);
      this.listenWhileWatched();
    }
  }

  /**
   * What `viewer` is sent of `change`: without the records in `hidden` (the change itself when
   * nothing is hidden, null when everything is); new notifications only when they are theirs.
   */
  private visiblePart(change: TChange, hidden: Set<number> | undefined, viewer: TViewer): TStreamChange | null {
    if ('notify' in change) return change.notify.includes(viewer.id) ? NOTIFICATIONS_CHANGE : null;
    if (!('items' in change) || !hidden) return change;
    const items = change.items.filter((item) => !hidden.has(item.id));
    if (items.length === change.items.length) return change;
    return items.length ? { items } : null;
  }

  private broadcast(whole: TChange): void {
    const id = ++this.sequence;
    const change: TChange = 'items' in whole ? { ...whole, items: whole.items.map(boundItemHistory) } : whole;
    this.pending.push({ id, change });
    if (!this.fanning) void this.fanOutPending();
  }

  /**
   * Sends what is pending, in order: one question to the walls for every change that gathered
   * while the last was out (so under load the questions grow, not the queue), then the whole
   * batch to every stream in one write, grouped by what its person may see (so under load the
   * writes grow in size, not in number: thousands of streams cost one write each per batch).
   */
  private async fanOutPending(): Promise<void> {
    this.fanning = true;
    try {
      while (this.pending.length) {
        const wait = this.nextRoundAt - performance.now();
        if (wait >= 1) await delay(wait);
        const started = performance.now();
        const batch = this.pending.splice(0);
        const asked = new Set([...this.streams, ...this.consumers].map((s) => s.viewer.id));
        const recordIds = batch.flatMap(({ change }) => ('items' in change ? change.items.map((item) => item.id) : []));
        let hidden: Map<number, Set<number>> | null = new Map();
        if (recordIds.length && asked.size) {
          hidden = await this.findHidden([...asked], recordIds).catch((error: unknown) => {
            // The walls could not be asked: nobody gets records they might not see; everyone reads again.
            this.logger.warn({ error: (error as Error).name }, 'live change not fanned out: streams told to resync');
            return null;
          });
        }
        const sent = batch.map(({ id, change }) => ({
          id,
          change: hidden === null && 'items' in change ? { resync: true as const } : change,
        }));
        await this.fanOut(sent, hidden ?? new Map<number, Set<number>>(), asked);
        this.nextRoundAt = started + this.streams.size * this.roundMsPerStream;
      }
    } finally {
      this.fanning = false;
    }
  }

  /**
   * Changes to every stream (their frames in one write) and in-process subscriber (one by one); a
   * person opened since the walls were asked is told to read again instead.
   */
  private async fanOut(batch: { id: number; change: TChange }[], hidden: Map<number, Set<number>>, asked: Set<number>): Promise<void> {
    const partFor = (change: TChange, viewer: TViewer): TStreamChange | null =>
      'items' in change && !asked.has(viewer.id) ? { resync: true } : this.visiblePart(change, hidden.get(viewer.id), viewer);
    // A viewer's parts of the batch, each keyed by what it holds ('' = the change as it came), so
    // that viewers who may see the same get the same bytes, each frame serialised once.
    type TPart = { id: number; part: TStreamChange; key: string };
    const byViewer = new Map<number, { key: string; parts: (TPart | null)[] }>();
    const viewFor = (viewer: TViewer) => {
      let view = byViewer.get(viewer.id);
      if (!view) {
        const parts = batch.map(({ id, change }): TPart | null => {
          const part = partFor(change, viewer);
          if (!part) return null;
          const key = part === change ? '' : 'items' in part ? part.items.map((item) => item.id).join(',') : Object.keys(part)[0]!;
          return { id, part, key };
        });
        byViewer.set(viewer.id, (view = { key: parts.map((p) => (p ? p.key : '-')).join('|'), parts }));
      }
      return view;
    };
    const frameOf = new Map<string, Buffer>();
    const frame = (p: TPart) => {
      const key = `${p.id}:${p.key}`;
      let bytes = frameOf.get(key);
      if (!bytes) frameOf.set(key, (bytes = dataFrame(p.id, p.part)));
      return bytes;
    };
    const writes = new Map<string, Buffer | null>();
    const streams = [...this.streams];
    for (const [i, stream] of streams.entries()) {
      // A write to a socket costs tens of microseconds: between slices, requests and new connections are served.
      if (i > 0 && i % STREAMS_PER_SLICE === 0) await nextTurn();
      if (!this.streams.has(stream)) continue; // ended meanwhile
      const { key, parts } = viewFor(stream.viewer);
      let bytes = writes.get(key);
      if (bytes === undefined) {
        const visible = parts.filter((p) => p !== null);
        writes.set(key, (bytes = visible.length ? Buffer.concat(visible.map(frame)) : null));
      }
      if (bytes) this.write(stream, bytes);
    }
    for (const consumer of this.consumers) for (const p of viewFor(consumer.viewer).parts) if (p) consumer.take(p.id, p.part);
  }

  private ping(): void {
    for (const stream of [...this.streams]) this.write(stream, PING_FRAME);
  }

  /**
   * Writes without waiting. A stream still holding more unsent bytes than the bound from earlier
   * frames is dropped instead, never waited on: a stream holds at most the bound plus one frame.
   */
  private write(stream: TStream, frame: Buffer): void {
    if (stream.res.writableLength > this.maxBufferedBytes) this.end(stream, 'behind');
    else stream.res.write(frame);
  }

  private end(stream: TStream, reason: TStreamEnd): void {
    if (!this.streams.delete(stream)) return;
    const left = (this.perUser.get(stream.viewer.id) ?? 1) - 1;
    if (left > 0) this.perUser.set(stream.viewer.id, left);
    else this.perUser.delete(stream.viewer.id);
    this.listenWhileWatched();
    if (reason === 'behind') this.dropped++;
    const { res } = stream;
    // For the request log's line about this request.
    res.locals.liveStream = { endedBy: reason, streams: this.streams.size, dropped: this.dropped };
    stream.onEnd();
    if (reason === 'client') return;
    if (reason === 'behind') {
      this.logger.warn({ streams: this.streams.size, dropped: this.dropped }, 'live stream too far behind: told to resync and dropped');
      // Read after all it was sent; the browser then reconnects and resyncs again (harmless).
      res.write(dataFrame(this.sequence, { resync: true }));
      const cut = setTimeout(() => res.destroy(), this.dropGraceMs).unref();
      res.once('close', () => clearTimeout(cut));
    }
    if (reason === 'session') res.write(RETURN_FRAME);
    res.end();
  }
}
