import type { IncomingMessage } from 'node:http';
import { parse as parseCookies } from 'cookie';
import type { User } from '../core/db/models/index';
import { NO_SECOND_FACTOR, type TSecondFactorState } from '../core/session-user';
import { findSessionState, SESSION_COOKIE } from './sessions';

/** The signed-in user of a request, from its session cookie (tRPC and the plain HTTP routes alike). */
export async function findRequestUser(
  req: IncomingMessage,
  sessionSecret: string,
  now: Date,
): Promise<{ token: string | null; user: User | null; secondFactor: TSecondFactorState }> {
  const token = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE] ?? null;
  const state = token ? await findSessionState(token, sessionSecret, now) : null;
  return { token: state ? token : null, user: state?.user ?? null, secondFactor: state?.secondFactor ?? NO_SECOND_FACTOR };
}
