export { findRequestUser } from './request-user';
export { SESSION_COOKIE } from './sessions';
export type { SignInLimiter } from './sign-in-limiter';
export type { TSessionUser } from '../core/session-user';
export { checkWatchedSessions, watchSession } from './session-watch';
export { readSecurityPolicy, saveSecurityPolicy } from './security-policy';
export type { TSecurityPolicyView } from './security-policy';
export { createUser } from './users';
export { readerOf, requireSession, secondFactorOf, sessionUserOf } from './require-session';
