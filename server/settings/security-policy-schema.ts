import { z } from 'zod';
import { REQUIRE_MFA, SESSION_IDLE_MINUTES, SESSION_MAX_HOURS } from '../../shared/security-policy';

/** The policy as a director sends it: each bound said in words when it is crossed. */
export const ZSecurityPolicy = z.object({
  requireMfa: z.enum(REQUIRE_MFA),
  sessionIdleMinutes: z
    .number()
    .int('Whole minutes')
    .min(SESSION_IDLE_MINUTES.min, `At least ${SESSION_IDLE_MINUTES.min} minutes`)
    .max(SESSION_IDLE_MINUTES.max, 'At most a week (10,080 minutes)'),
  sessionMaxHours: z
    .number()
    .int('Whole hours')
    .min(SESSION_MAX_HOURS.min, `At least ${SESSION_MAX_HOURS.min} hour`)
    .max(SESSION_MAX_HOURS.max, 'At most a week (168 hours)'),
});
