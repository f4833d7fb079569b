import { performance } from 'node:perf_hooks';

// The floor rate of a download (server/media/README.md "Files"): a provider sending fewer bytes a second than this,
// measured over a sliding window once a grace period has passed, has its try cut (and retried
// later), rather than holding a worker for as long as it cares to trickle. An overall deadline from
// the size alone would let a provider just above it hold a worker for the whole file.

export type TFloorRate = {
  /** Fewer bytes a second than this over the window cuts the try. */
  bytesPerSecond: number;
  /** The sliding window the rate is measured over. */
  windowMs: number;
  /** From the first byte asked for, how long before the floor applies (a connection warming up). */
  graceMs: number;
};

/** Counts a download's bytes as they arrive and aborts `signal` when the recent rate falls below the floor. */
export class DownloadFloor {
  private readonly controller = new AbortController();
  /** Aborted when the try is cut for being too slow. */
  readonly signal: AbortSignal = this.controller.signal;
  private readonly samples: { at: number; bytes: number }[] = [];
  private started: number | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly floor: TFloorRate,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Starts the clock (and, with `watch`, checks a few times a window). */
  start(watch = true): void {
    this.started = this.now();
    if (!watch) return;
    this.timer = setInterval(() => this.check(), Math.min(1_000, Math.max(25, this.floor.windowMs / 4)));
    this.timer.unref();
  }

  add(bytes: number): void {
    this.samples.push({ at: this.now(), bytes });
  }

  /** Cuts the try (and says so) when, past the grace period, the last window brought too few bytes. */
  check(): boolean {
    if (this.started === null || this.signal.aborted) return this.signal.aborted;
    const at = this.now();
    const elapsed = at - this.started;
    if (elapsed < this.floor.graceMs) return false;
    while (this.samples.length && this.samples[0]!.at <= at - this.floor.windowMs) this.samples.shift();
    const bytes = this.samples.reduce((sum, s) => sum + s.bytes, 0);
    // A download younger than the window is measured over the time it has had.
    const span = Math.min(this.floor.windowMs, elapsed);
    if (bytes * 1000 >= this.floor.bytesPerSecond * span) return false;
    this.controller.abort(new DOMException('below the floor rate', 'TimeoutError'));
    return true;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
