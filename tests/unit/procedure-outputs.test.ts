import { describe, expect, it } from 'vitest';
import { createAppRouter } from '../../server/app/app-router';
import { loadConfig } from '../../server/core/config';
import { createLiveRouter } from '../../server/live/live-router';
import { createContextInner } from '../../server/trpc/context';
import { createCallerFactory } from '../../server/trpc/init';

// Every procedure says what it answers with `.output()`: tRPC checks each answer against it and
// sends only the fields it names, so a column a query grew is not passed on unseen. Built with
// throwaway collaborators, as tests/bench/parts/bench-caller.ts does: nothing here reaches a database.
const appRouter = createAppRouter({
  config: loadConfig({}),
  logger: { info: () => undefined, warn: () => undefined, error: () => undefined } as never,
  events: {} as never,
  liveStreams: {} as never,
  numberRoutes: {} as never,
  provider: null,
  providerFor: () => Promise.resolve(null),
  signInLimiter: {} as never,
  mediaStore: {} as never,
  signingKey: {} as never,
  now: () => new Date(),
});

type TProcedureDef = { type: string; middlewares: { _type?: string }[]; output?: unknown };
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: TProcedureDef }>);

describe('procedure outputs', () => {
  it('finds the app router’s procedures, of every kind', () => {
    expect(procedures.map(([path]) => path)).toEqual(expect.arrayContaining(['inbox.thread', 'chat.send', 'inbox.onChange']));
    expect(new Set(procedures.map(([, procedure]) => procedure._def.type))).toEqual(new Set(['query', 'mutation', 'subscription']));
  });

  it('declares an output parser on every procedure, the subscription included', () => {
    const missing = procedures
      .filter(([, procedure]) => procedure._def.output === undefined || !procedure._def.middlewares.some((m) => m._type === 'output'))
      .map(([path]) => path);
    expect(missing).toEqual([]);
  });

  it('checks each event of the live subscription as it is yielded', async () => {
    const liveStreams = {
      // The stream the router reads (`for await` takes a plain iterable as well).
      *changesFor() {
        yield { id: 1, change: { resync: true, unseen: 'a field no event has' } };
        yield { id: 2, change: { items: [{ id: 7, body: 'half a record' }] } };
      },
    };
    const live = createLiveRouter({ liveStreams: liveStreams as never, config: { sessionSecret: 'not used: no session' } });
    const caller = createCallerFactory(live)(
      createContextInner({ user: { id: 1, name: 'Sam', email: 'sam@firm.example', role: 'staff' } }),
    );
    const events = (await caller.onChange())[Symbol.asyncIterator]();

    const first = await events.next();
    expect(first.done).toBe(false);
    // In the process, the caller yields the tracked envelope itself ([id, data]); its type is what an HTTP client reads.
    const [id, data] = first.value as unknown as [string, unknown];
    expect([id, data]).toEqual(['1', { resync: true }]);
    // Half a record is no thread item: the stream ends with zod's error rather than pass it on.
    await expect(events.next()).rejects.toMatchObject({ name: 'ZodError' });
  });
});
