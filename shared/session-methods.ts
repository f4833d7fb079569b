// How a session's person signed in: stored on the session (sessions.method, whose CHECK lists the
// same words), shown in Settings and written in the trail. A new way of signing in is added here
// and to that CHECK together.
export const SESSION_METHODS = ['password'] as const;
export type TSessionMethod = (typeof SESSION_METHODS)[number];

/** The words a person reads for each method. */
export const SESSION_METHOD_LABEL: Record<TSessionMethod, string> = {
  password: 'password',
};
