import type { CreateExpressContextOptions } from '@trpc/server/adapters/express';
import { findRequestUser, SESSION_COOKIE } from '../auth';
import { createContextInner, type TContext } from '../trpc/context';

/** Each HTTP call's context: the caller's address, their session (from its cookie), and a way to set or clear that cookie. */
export function createContextFactory(deps: { sessionSecret: string; secureCookies: boolean; now: () => Date }) {
  return async ({ req, res }: CreateExpressContextOptions): Promise<TContext> => {
    const requestedAt = deps.now();
    const { token, user: found, secondFactor } = await findRequestUser(req, deps.sessionSecret, requestedAt);
    const cookieOptions = {
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: deps.secureCookies,
      path: '/',
    };
    return createContextInner({
      clientIp: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      userAgent: req.get('user-agent') ?? null,
      viaHttp: true,
      sessionToken: found ? token : null,
      user: found ? { id: found.id, name: found.name, email: found.email, role: found.role } : null,
      secondFactor,
      requestedAt,
      sessionCookie: {
        set: (value, expiresAt) => res.cookie(SESSION_COOKIE, value, { ...cookieOptions, expires: expiresAt }),
        clear: () => res.clearCookie(SESSION_COOKIE, cookieOptions),
      },
    });
  };
}
