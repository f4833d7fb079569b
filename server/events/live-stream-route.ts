import type { RequestHandler } from 'express';
import superjson from 'superjson';
import { findRequestUser } from '../auth/request-user';
import { watchSession } from '../auth/session-watch';
import { ZLiveInput, type LiveStreams } from './live-streams';

export const LIVE_PATH = '/inbox.onChange';

/** The subscription's input from the URL (`?input=` superjson), or undefined when it cannot be read. */
function readInput(raw: unknown): { ok: true; lastEventId?: string | null } | { ok: false } {
  if (raw === undefined) return { ok: true };
  try {
    const parsed = ZLiveInput.safeParse(superjson.deserialize(JSON.parse(String(raw))));
    return parsed.success ? { ok: true, lastEventId: parsed.data?.lastEventId } : { ok: false };
  } catch {
    return { ok: false };
  }
}

/**
 * `GET /trpc/inbox.onChange` for a signed-in person, served by the fan-out (`LiveStreams`) ahead of
 * tRPC's handler. Anything else about the request — nobody signed in, an input that does not parse —
 * goes on to tRPC, whose procedure answers it (UNAUTHORIZED, BAD_REQUEST) in its own words.
 */
export function serveLiveStream(liveStreams: LiveStreams, sessionSecret: string, now: () => Date): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' || req.path !== LIVE_PATH) return next();
    const input = readInput(req.query.input);
    if (!input.ok) return next();
    let found: Awaited<ReturnType<typeof findRequestUser>>;
    try {
      found = await findRequestUser(req, sessionSecret, now());
    } catch (error) {
      return next(error);
    }
    const { token, user } = found;
    if (!user || !token) return next();
    // A browser reconnecting by itself sends Last-Event-ID; tRPC's link sends lastEventId in the input.
    const resumed = Boolean(input.lastEventId ?? req.headers['last-event-id']);
    // The stream ends with the session it was opened with (sign-out anywhere, deactivation, expiry).
    const session = watchSession(token, sessionSecret);
    const endForSession = liveStreams.open(res, { id: user.id, role: user.role }, { resumed, onEnd: () => session.stop() });
    session.signal.addEventListener('abort', endForSession, { once: true });
  };
}
