import type { RequestHandler } from 'express';
import { findRequestUser, watchSession } from '../auth';
import { sendHttpError } from '../http/http-errors';
import { ZLiveInput, type LiveStreams } from './live-streams';
import { LIVE_PATH } from './live-path';

/**
 * The last event id a reconnecting client sent, read where tRPC reads it: the `Last-Event-ID`
 * header (a browser reconnecting by itself), `?lastEventId=`, or the input's `lastEventId` (tRPC's
 * link). The input is `?input=` as superjson; this one has nothing superjson needs to revive, so
 * only its plain `json` part is read, never superjson on a stranger's `meta` (an input with any other
 * `meta` than no input's is left to tRPC). null: it cannot be read.
 */
function readLastEventId(query: Record<string, unknown>, header: unknown): { lastEventId: string | undefined } | null {
  const first = (value: unknown): unknown => (Array.isArray(value) ? (value as unknown[])[0] : value);
  const raw = first(query.input);
  let fromInput: string | null | undefined;
  if (raw !== undefined && raw !== '') {
    if (typeof raw !== 'string') return null;
    try {
      const envelope: unknown = JSON.parse(raw);
      if (typeof envelope !== 'object' || envelope === null) return null;
      const { json, meta } = envelope as { json?: unknown; meta?: { values?: unknown } };
      // tRPC's link sends no input as superjson's `undefined`: json null, meta {values: ['undefined']}.
      const isUndefined = json === null && JSON.stringify(meta?.values) === '["undefined"]';
      if (meta !== undefined && !isUndefined) return null;
      const parsed = ZLiveInput.safeParse(isUndefined ? undefined : json);
      if (!parsed.success) return null;
      fromInput = parsed.data?.lastEventId;
    } catch {
      return null;
    }
  }
  const candidates = [first(header), first(query.lastEventId), first(query['Last-Event-Id']), fromInput];
  return { lastEventId: candidates.find((c): c is string => typeof c === 'string' && c !== '') };
}

/**
 * `GET /trpc/inbox.onChange` for a signed-in person, served by the fan-out (`LiveStreams`) ahead of
 * tRPC's handler. Anything else about the request — nobody signed in, an input that does not parse —
 * goes on to tRPC, whose procedure answers it (UNAUTHORIZED, BAD_REQUEST) in its own words; a
 * signed-in request that reaches the procedure over HTTP by another spelling of the path
 * (`inbox%2EonChange`) is refused there, so every stream over HTTP is one of the fan-out's.
 */
export function serveLiveStream(liveStreams: LiveStreams, sessionSecret: string, now: () => Date): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' || req.path !== LIVE_PATH) return next();
    if (!liveStreams.accepting) return liveStreams.turnAway(res);
    const resume = readLastEventId(req.query, req.headers['last-event-id']);
    if (!resume) return next();
    let found: Awaited<ReturnType<typeof findRequestUser>>;
    try {
      found = await findRequestUser(req, sessionSecret, now());
    } catch (error) {
      return next(error);
    }
    const { token, user } = found;
    // Held at enrolment: tRPC's procedure refuses it in its words (server/auth/README.md "Step-up and the firm's policy").
    if (!user || !token || found.secondFactor.mustEnrol) return next();
    const viewer = { id: user.id, role: user.role };
    const refusal = liveStreams.refusalFor(viewer);
    if (refusal) {
      return sendHttpError(res, refusal.status, refusal.message);
    }
    // The stream ends with the session it was opened with (sign-out anywhere, deactivation, expiry).
    const session = watchSession(token, sessionSecret);
    const endForSession = liveStreams.open(res, viewer, { resumed: resume.lastEventId !== undefined, onEnd: () => session.stop() });
    session.signal.addEventListener('abort', endForSession, { once: true });
  };
}
