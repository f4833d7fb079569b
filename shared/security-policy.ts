// The firm's sign-in policy as directors set it in Settings › Security and the server enforces it
// (its schema: server/settings/security-policy-schema.ts).
export const REQUIRE_MFA = ['none', 'directors', 'everyone'] as const;
export type TRequireMfa = (typeof REQUIRE_MFA)[number];

/** Bounds a director can choose: five minutes idle at least; a session lasts a week at most (its cookie's life). */
export const SESSION_IDLE_MINUTES = { min: 5, max: 10_080 } as const;
export const SESSION_MAX_HOURS = { min: 1, max: 168 } as const;

export type TSecurityPolicy = { requireMfa: TRequireMfa; sessionIdleMinutes: number; sessionMaxHours: number };

/** No row yet: nobody is asked for a second factor and sessions last as they always did (a week, no idle limit shorter). */
export const DEFAULT_SECURITY_POLICY: TSecurityPolicy = { requireMfa: 'none', sessionIdleMinutes: 10_080, sessionMaxHours: 168 };

/** Whether the policy asks this person for a second factor. */
export const policyCovers = (requireMfa: TRequireMfa, role: 'director' | 'staff') =>
  requireMfa === 'everyone' || (requireMfa === 'directors' && role === 'director');
