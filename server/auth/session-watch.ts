import { queryRows, sql } from '../core/sql';
import { sessionInForce, toSessionId } from './sessions';

// A live stream (inbox.onChange) is opened with a session and must end with it: signed out here,
// signed out on another instance, or expired. One query every few seconds checks every open
// stream's session at once, however many streams are open.
export const SESSION_CHECK_EVERY_MS = 5_000;
let checkEveryMs = SESSION_CHECK_EVERY_MS;

const watched = new Map<string, Set<AbortController>>();
let timer: NodeJS.Timeout | undefined;

const startTimer = () => setInterval(() => void checkWatchedSessions(), checkEveryMs).unref();

/**
 * How often open streams' sessions are checked, for this process (5 s unless changed): tests
 * shorten it rather than wait a check out. A check already scheduled moves to the new interval.
 */
export function setSessionCheckInterval(ms: number): void {
  if (!Number.isInteger(ms) || ms < 1) throw new RangeError(`session check interval must be a positive whole number of ms, not ${ms}`);
  checkEveryMs = ms;
  if (timer) {
    clearInterval(timer);
    timer = startTimer();
  }
}

/**
 * Checks every open stream's session now: called every few seconds, and at once when the database
 * announces that sessions ended somewhere (on any instance) or the policy changed.
 */
export async function checkWatchedSessions(now: Date = new Date()): Promise<void> {
  const ids = [...watched.keys()];
  if (ids.length === 0) return;
  let alive: Set<string>;
  try {
    // A deactivated user's session is over even if a row survived (created while deactivation ran).
    const rows = await queryRows<{ id: string }>(
      sql`SELECT s.id FROM sessions s JOIN users u ON u.id = s.user_id LEFT JOIN security_policy p ON true
          WHERE s.id = ANY(${ids}::text[]) AND ${sessionInForce(now)} AND u.deactivated_at IS NULL`,
    );
    alive = new Set(rows.map((r) => r.id));
  } catch {
    return; // the database is away: no verdict, streams stay until the next check
  }
  for (const id of ids) if (!alive.has(id)) endSessionById(id);
}

function endSessionById(id: string): void {
  for (const controller of watched.get(id) ?? []) controller.abort();
  watched.delete(id);
  if (watched.size === 0 && timer) {
    clearInterval(timer);
    timer = undefined;
  }
}

/** A signal that aborts when the session behind `token` ends; `stop` when the stream ends first. */
export function watchSession(token: string, secret: string): { signal: AbortSignal; stop: () => void } {
  const id = toSessionId(token, secret);
  const controller = new AbortController();
  const set = watched.get(id) ?? new Set();
  set.add(controller);
  watched.set(id, set);
  timer ??= startTimer();
  return {
    signal: controller.signal,
    stop: () => {
      set.delete(controller);
      if (set.size === 0 && watched.get(id) === set) endSessionById(id);
    },
  };
}

/** Sign-out on this instance ends the session's streams at once (other instances: at their next check). */
export function endWatchedSession(token: string, secret: string): void {
  endSessionById(toSessionId(token, secret));
}

/** A deactivated user's sessions (their stored ids, already deleted) end their streams here at once. */
export function endWatchedSessionIds(sessionIds: string[]): void {
  for (const id of sessionIds) endSessionById(id);
}
