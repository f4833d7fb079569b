import type { CreateExpressContextOptions } from '@trpc/server/adapters/express';
import { findRequestUser, SESSION_COOKIE } from '../auth';
import type { SignInLimiter, TSessionUser } from '../auth';
import type { TConfig } from '../core/config';
import type { TLogger } from '../core/logger';
import type { ChatEvents } from '../events';
import type { TThreadItem } from '../inbox';
import type { LiveStreams } from '../live';
import type { TMediaStore } from '../media';
import type { ProviderClient } from '../provider';

/** What procedures need from the outside world; tests pass their own. */
export type TDeps = {
  config: TConfig;
  logger: TLogger;
  events: ChatEvents<TThreadItem>;
  /** The open live streams (inbox.onChange) and their fan-out. */
  liveStreams: LiveStreams;
  /** null in demo mode (no MESSAGING_API_KEY): nothing leaves the server. */
  provider: ProviderClient | null;
  signInLimiter: SignInLimiter;
  /** Where attachment bytes are kept (PostgreSQL by default). */
  mediaStore: TMediaStore;
  now: () => Date;
};

export type { TSessionUser };

export type TSessionCookie = {
  set: (token: string, expiresAt: Date) => void;
  clear: () => void;
};

export type TContextInner = {
  deps: TDeps;
  /** The caller's address (behind a proxy on loopback, the forwarded one). */
  clientIp: string;
  user: TSessionUser | null;
  sessionToken: string | null;
  sessionCookie: TSessionCookie;
  /** The call came over HTTP (tRPC's handler), not from inside the process (createCaller). */
  viaHttp: boolean;
};

const noCookie: TSessionCookie = { set: () => undefined, clear: () => undefined };

/** The context without HTTP: what tests use to call procedures directly. */
export function createContextInner(opts: {
  deps: TDeps;
  clientIp?: string;
  user?: TSessionUser | null;
  sessionToken?: string | null;
  sessionCookie?: TSessionCookie;
  viaHttp?: boolean;
}): TContextInner {
  return {
    deps: opts.deps,
    clientIp: opts.clientIp ?? 'unknown',
    user: opts.user ?? null,
    sessionToken: opts.sessionToken ?? null,
    sessionCookie: opts.sessionCookie ?? noCookie,
    viaHttp: opts.viaHttp ?? false,
  };
}

export function createContextFactory(deps: TDeps) {
  return async ({ req, res }: CreateExpressContextOptions): Promise<TContextInner> => {
    const { token, user: found } = await findRequestUser(req, deps.config.sessionSecret, deps.now());
    const cookieOptions = {
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: deps.config.secureCookies,
      path: '/',
    };
    return createContextInner({
      deps,
      clientIp: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      viaHttp: true,
      sessionToken: found ? token : null,
      user: found ? { id: found.id, name: found.name, email: found.email, role: found.role } : null,
      sessionCookie: {
        set: (value, expiresAt) => res.cookie(SESSION_COOKIE, value, { ...cookieOptions, expires: expiresAt }),
        clear: () => res.clearCookie(SESSION_COOKIE, cookieOptions),
      },
    });
  };
}

export type TContext = TContextInner;
