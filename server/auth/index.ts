export { findRequestUser } from './request-user';
export { SESSION_COOKIE } from './sessions';
export type { SignInLimiter } from './sign-in-limiter';
export type { TSessionUser } from '../core/session-user';
export { watchSession } from './session-watch';
export { createUser } from './users';
export { readerOf, requireSession, sessionUserOf } from './require-session';
