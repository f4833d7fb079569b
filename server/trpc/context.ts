import { NO_SECOND_FACTOR, type TSecondFactorState, type TSessionUser } from '../core/session-user';

// What every procedure is given: the request, and nothing of the outside world. A router that
// needs a collaborator (the provider, the live streams, a setting) receives it from the app when
// the app builds it (server/app/app-router.ts), so this base imports no feature (server/ARCHITECTURE.md "The rule").

export type { TSecondFactorState, TSessionUser };

export type TSessionCookie = {
  set: (token: string, expiresAt: Date) => void;
  clear: () => void;
};

export type TContext = {
  /** The caller's address (behind a proxy on loopback, the forwarded one). */
  clientIp: string;
  /** The caller's User-Agent header, as sent (null: none), recorded on the session a sign-in makes. */
  userAgent: string | null;
  user: TSessionUser | null;
  /** The session's second factor: what enrol-first and step-up check (trpc/init.ts). */
  secondFactor: TSecondFactorState;
  sessionToken: string | null;
  sessionCookie: TSessionCookie;
  /** The call came over HTTP (tRPC's handler), not from inside the process (createCaller). */
  viaHttp: boolean;
  /** When the call arrived, by the app's clock (injected in tests): how old a step-up is, is measured from it. */
  requestedAt: Date;
};

const noCookie: TSessionCookie = { set: () => undefined, clear: () => undefined };

/** The context without HTTP: what the app's HTTP factory builds on, and what in-process callers use. */
export function createContextInner(opts: {
  clientIp?: string;
  userAgent?: string | null;
  user?: TSessionUser | null;
  secondFactor?: TSecondFactorState;
  sessionToken?: string | null;
  sessionCookie?: TSessionCookie;
  viaHttp?: boolean;
  requestedAt?: Date;
}): TContext {
  return {
    clientIp: opts.clientIp ?? 'unknown',
    userAgent: opts.userAgent ?? null,
    user: opts.user ?? null,
    secondFactor: opts.secondFactor ?? NO_SECOND_FACTOR,
    sessionToken: opts.sessionToken ?? null,
    sessionCookie: opts.sessionCookie ?? noCookie,
    viaHttp: opts.viaHttp ?? false,
    requestedAt: opts.requestedAt ?? new Date(),
  };
}
