import { plural } from '../audit-detail-words';
import type { TDescribers } from './audit-sentence';

/** Two-step sign-in set up, removed, and its recovery codes replaced (server/auth/README.md "Two-step sign-in"). */
const PROOF = { totp: 'an authenticator code', recovery_code: 'a recovery code', passkey: 'a passkey' } as const;

export const MFA_SENTENCES: TDescribers<'auth.mfa_enrol' | 'auth.mfa_remove' | 'auth.recovery_codes_regenerated' | 'auth.step_up'> = {
  'auth.mfa_enrol': (_d, s) => `${s.who ?? s.subject} set up an authenticator app for two-step sign-in`,
  'auth.mfa_remove': (d, s) => {
    const ended = d.sessionsEnded ? `: ${plural(d.sessionsEnded, 'other session')} ended` : '';
    return `${s.who ?? s.subject} removed their authenticator app${ended}`;
  },
  'auth.recovery_codes_regenerated': (d, s) =>
    `${s.who ?? s.subject} made new recovery codes${d.count !== undefined ? ` (${plural(d.count, 'code')})` : ''}`,
  'auth.step_up': (d, s) =>
    `${s.who ?? s.subject} confirmed it was them${d.method ? ` with ${PROOF[d.method]}` : ''} before a protected change`,
};
