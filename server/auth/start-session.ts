import { recordAuditEvent } from '../audit';
import type { TContext } from '../trpc/context';
import { createSession, deleteSession, type TSessionOrigin } from './sessions';

/** Where a sign-in happens: the session the browser had (if any), its address and device, and how its cookie is set. */
export type TSignInPlace = {
  oldToken: string | null;
  ip: string;
  userAgent: string | null;
  setCookie: (token: string, expiresAt: Date) => void;
};

export const signInPlaceOf = (ctx: TContext): TSignInPlace => ({
  oldToken: ctx.sessionToken,
  ip: ctx.clientIp,
  userAgent: ctx.userAgent,
  setCookie: (token, expiresAt) => ctx.sessionCookie.set(token, expiresAt),
});

/**
 * Every way of signing in ends here: a fresh session id (no fixation — the browser's old session, if
 * any, is dropped), its cookie, and `auth.sign_in` on the trail with the method. A second factor's
 * method marks the session as having proven one (sessions.ts createSession).
 */
export async function startSession(
  userId: number,
  origin: Pick<TSessionOrigin, 'method' | 'secondFactor'>,
  place: TSignInPlace,
  deps: { sessionSecret: string; now: () => Date },
): Promise<void> {
  if (place.oldToken) await deleteSession(place.oldToken, deps.sessionSecret);
  const { token, expiresAt } = await createSession(userId, deps.sessionSecret, deps.now(), {
    ...origin,
    ip: place.ip,
    userAgent: place.userAgent,
  });
  place.setCookie(token, expiresAt);
  await recordAuditEvent({
    actor: { userId, ip: place.ip },
    action: 'auth.sign_in',
    subject: `user:${userId}`,
    detail: { method: origin.method },
  });
}
