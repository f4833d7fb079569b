import type { TNumberRoute } from './number-routes';

/**
 * The firm's numbers as the webhook routes by them, read once and kept until they change, rather
 * than read for every delivery (a query each: tests/bench/README.md "Ingest, part by part"). Kept
 * true three ways (server/numbers/README.md "Several numbers"): the database announces every change
 * to the numbers, by any instance or by hand, and each instance forgets its copy; this instance's own
 * changes forget it as they commit; and a delivery the kept copy would refuse or ignore is decided
 * again on a fresh read, so a number added a moment ago anywhere is never ignored.
 */
export class NumberRouteCache {
  private kept: Promise<TNumberRoute[]> | undefined;

  constructor(private readonly read: () => Promise<TNumberRoute[]>) {}

  /** The kept numbers, read first if none are kept. */
  get(): Promise<TNumberRoute[]> {
    return this.kept ?? this.fresh();
  }

  /** The numbers read now, and kept. */
  fresh(): Promise<TNumberRoute[]> {
    const reading = this.read();
    this.kept = reading;
    // A failed read is not kept: the next delivery reads again.
    reading.catch(() => {
      if (this.kept === reading) this.kept = undefined;
    });
    return reading;
  }

  /** The numbers changed: the next delivery reads them again. */
  forget(): void {
    this.kept = undefined;
  }
}
