import { SignInLimiter } from '../../../server/auth/sign-in-limiter';
import { loadConfig } from '../../../server/core/config';
import { PostgresMediaStore } from '../../../server/media/media-store';
import { createAppRouter, type AppRouter } from '../../../server/app/app-router';
import { createContextInner } from '../../../server/trpc/context';
import { createCallerFactory } from '../../../server/trpc/init';
import { benchLogger } from '../app-under-test';

// The real tRPC routers called in-process for one signed-in person: the query benchmarks measure
// the procedures and the database, without HTTP. Every read answers for this person (their walls).

export type TBenchCaller = ReturnType<AppRouter['createCaller']>;
export type TBenchPerson = { id: number; name: string; email: string; role: 'director' | 'staff' };

/** `env`: settings beside the database's (REPLY_TARGET_MINUTES for the ownership rows). */
export function benchCaller(url: string, user: TBenchPerson, env: Record<string, string> = {}): TBenchCaller {
  const router = createAppRouter({
    config: loadConfig({ ...env, DATABASE_URL: url }),
    logger: benchLogger,
    events: { publishQuietly: () => undefined } as never,
    liveStreams: {} as never,
    numberRoutes: {} as never,
    provider: null,
    providerFor: () => Promise.resolve(null),
    signInLimiter: new SignInLimiter(),
    mediaStore: new PostgresMediaStore(),
    signingKey: {} as never,
    now: () => new Date(),
  });
  return createCallerFactory(router)(createContextInner({ user }));
}
