import { expect, it } from 'vitest';
import { retryDelayMs, WEBHOOK_RETRY_DEFAULTS, wasTaken } from '../../server/dev/provider-sim/webhook-retries';

// The simulator's backoff between webhook tries: doubling from the base, capped, jittered in the upper half.

it('doubles from the base up to the cap, each wait a random point in the upper half of its ceiling', () => {
  const low = (n: number) => retryDelayMs(n, 1_000, 15_000, () => 0);
  const high = (n: number) => retryDelayMs(n, 1_000, 15_000, () => 1);
  expect([1, 2, 3, 4, 5, 6].map(high)).toEqual([1_000, 2_000, 4_000, 8_000, 15_000, 15_000]);
  expect([1, 2, 3, 4, 5, 6].map(low)).toEqual([500, 1_000, 2_000, 4_000, 7_500, 7_500]);
  expect(retryDelayMs(10_000, 1_000, 15_000, () => 1)).toBe(15_000); // no overflow however many tries
});

it('by default retries for 7 days, waiting at most 15 minutes between tries', () => {
  expect(WEBHOOK_RETRY_DEFAULTS).toEqual({ baseMs: 1_000, capMs: 900_000, forMs: 604_800_000 });
});

it('a post is taken by a 2xx only; no answer (0), 3xx, 4xx and 5xx are retried', () => {
  expect([200, 201, 204, 299].every(wasTaken)).toBe(true);
  expect([0, 199, 301, 400, 401, 413, 500, 503].some(wasTaken)).toBe(false);
});
