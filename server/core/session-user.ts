/** Who is signed in, as every procedure and route sees them. */
export type TSessionUser = { id: number; name: string; email: string; role: 'director' | 'staff' };

/**
 * The session's second factor (server/auth/README.md "Step-up and the firm's policy"): whether its
 * person has one set up, when this session last proved it, and whether the firm's policy makes them
 * set one up before anything else.
 */
export type TSecondFactorState = { has: boolean; provenAt: Date | null; mustEnrol: boolean };

/** No session, or an in-process caller: nothing to step up with and nothing to enrol. */
export const NO_SECOND_FACTOR: TSecondFactorState = { has: false, provenAt: null, mustEnrol: false };
