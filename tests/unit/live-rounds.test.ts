import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvents } from '../../server/events';
import type { TThreadItem } from '../../server/inbox';
import { createLogger } from '../../server/core/logger';
import { LiveStreams } from '../../server/live/live-streams';

// The fan-out's rounds (server/live/live-streams.ts): with thousands of streams, each write to each
// stream costs the server a system call and the browser a wake-up, whatever it carries. So what
// gathers before a round goes to a stream in one write, and rounds are paced by how many streams are
// open. Fake responses here count the writes; the wire itself is checked in tests/integration/live-streams.test.ts.

type TChangeListener = (change: { items: { id: number }[] }) => void;

/** A response that records what each write carried. */
function fakeResponse() {
  const emitter = new EventEmitter();
  const writes: string[] = [];
  const res = {
    destroyed: false,
    socket: { destroyed: false },
    writableLength: 0,
    locals: {},
    writeHead: () => res,
    write: (chunk: string | Buffer) => {
      writes.push(chunk.toString());
      return true;
    },
    end: () => undefined,
    on: (event: string, listener: () => void) => emitter.on(event, listener),
    once: (event: string, listener: () => void) => emitter.once(event, listener),
  };
  return { res: res as unknown as Response, writes };
}

const item = (id: number) => ({ id, body: `message ${id}`, metadata: {} }) as unknown as TThreadItem;
/** The ids of the records a write carried, in order. */
const idsIn = (write: string) => [...write.matchAll(/"id":(\d+)/g)].map((m) => Number(m[1]));

let live: LiveStreams | undefined;
afterEach(() => live?.close());

function startLive(roundMsPerStream: number) {
  let listener: TChangeListener = () => undefined;
  const events = {
    subscribe: (l: TChangeListener) => {
      listener = l;
      return () => undefined;
    },
  } as unknown as ChatEvents<TThreadItem>;
  live = new LiveStreams(events, createLogger('silent'), { roundMsPerStream, findHidden: () => Promise.resolve(new Map()) });
  const stream = fakeResponse();
  live.open(stream.res, { id: 1, role: 'staff' } as never, { resumed: false });
  const connectWrites = stream.writes.length;
  return {
    publish: (id: number) => listener({ items: [item(id)] }),
    /** The writes that carried changes. */
    changeWrites: () => stream.writes.slice(connectWrites),
  };
}

const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

describe('live fan-out rounds', () => {
  it('changes that arrive within a round’s pace go to a stream in one write, in order, each with its own id', async () => {
    const { publish, changeWrites } = startLive(200); // one stream: rounds at most every 200 ms
    publish(1);
    await expect.poll(changeWrites).toHaveLength(1);
    // Separate arrivals, each after the last was fully handled: without the pace each would be its own round.
    publish(2);
    await nextMacrotask();
    publish(3);
    await nextMacrotask();
    publish(4);
    await expect.poll(changeWrites, { timeout: 2_000 }).toHaveLength(2);
    const [first, gathered] = changeWrites();
    expect(idsIn(first!)).toEqual([1]);
    expect(idsIn(gathered!)).toEqual([2, 3, 4]);
    expect([...gathered!.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([2, 3, 4]);
  });

  it('with few streams the pace is too short to notice: a change alone is written at once', async () => {
    const { publish, changeWrites } = startLive(0.05);
    publish(1);
    await expect.poll(changeWrites).toHaveLength(1);
    publish(2);
    await expect.poll(changeWrites, { timeout: 500, interval: 5 }).toHaveLength(2);
    expect(changeWrites().map(idsIn)).toEqual([[1], [2]]);
  });
});
