import type { IncomingMessage } from 'node:http';
import { parse as parseCookies } from 'cookie';
import type { User } from '../core/db/models/index';
import { findSessionUser, SESSION_COOKIE } from './sessions';

/** The signed-in user of a request, from its session cookie (tRPC and the plain HTTP routes alike). */
export async function findRequestUser(
  req: IncomingMessage,
  sessionSecret: string,
  now: Date,
): Promise<{ token: string | null; user: User | null }> {
  const token = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE] ?? null;
  const user = token ? await findSessionUser(token, sessionSecret, now) : null;
  return { token: user ? token : null, user };
}
