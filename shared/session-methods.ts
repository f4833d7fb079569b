// How a session's person signed in: stored on the session (sessions.method, whose CHECK lists the
// same words), shown in Settings and written in the trail. A new way of signing in is added here
// and to that CHECK together. A two-step sign-in is named by its last step (password then a code: 'totp').
export const SESSION_METHODS = ['password', 'totp', 'recovery_code', 'passkey', 'oidc'] as const;
export type TSessionMethod = (typeof SESSION_METHODS)[number];

/** The words a person reads for each method. */
export const SESSION_METHOD_LABEL: Record<TSessionMethod, string> = {
  password: 'password',
  totp: 'authenticator code',
  recovery_code: 'recovery code',
  passkey: 'passkey',
  oidc: 'single sign-on',
};

/** The second steps a person may have set up, as a sign-in ticket lists them. */
export const SECOND_FACTOR_METHODS = ['totp', 'passkey', 'recovery_code'] as const;
export type TSecondFactorMethod = (typeof SECOND_FACTOR_METHODS)[number];
