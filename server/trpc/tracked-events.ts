import { isTrackedEnvelope, tracked, type TrackedEnvelope } from '@trpc/server';
import { z } from 'zod';

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * A subscription's `.output()`: tRPC checks what the resolver returns, which for a subscription is
 * the stream itself, so this parser passes the stream on and checks each event (`tracked`, with its
 * id) as it is yielded — tRPC's own recipe for validating subscriptions. An event that fails ends
 * the stream with tRPC's output error.
 */
export function zTrackedEvents<TOut, TIn>(event: z.ZodType<TOut, TIn>) {
  return z.custom<AsyncIterable<TrackedEnvelope<TIn>>>(isAsyncIterable).transform(async function* (events) {
    const iterator = events[Symbol.asyncIterator]();
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        if (!isTrackedEnvelope(next.value)) throw new Error('A live event was yielded without its id (tracked).');
        const [id, data] = next.value;
        yield tracked(id, await event.parseAsync(data));
      }
    } finally {
      // Ends the resolver's own stream too (its `finally` stops the session watch) when the reader goes.
      await iterator.return?.();
    }
  });
}
