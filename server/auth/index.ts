export { findRequestUser } from './request-user';
export { watchSession } from './session-watch';
export { createUser } from './users';
export { requireSession, sessionUserOf } from './require-session';
