import type { SIGN_IN_REFUSALS } from '../../../../../shared/audit/audit-details';
import { SESSION_METHOD_LABEL } from '../../../../../shared/session-methods';
import { dateOf, plural } from '../audit-detail-words';
import type { TDescribers } from './audit-sentence';

const SIGN_IN_REFUSAL: Record<(typeof SIGN_IN_REFUSALS)[number], string> = {
  wrong_password: 'wrong password',
  unknown_email: 'no account has this email',
  deactivated: 'the account is deactivated',
  invalid_email: 'the email has a character no address can have',
  sso_failed: 'the single sign-on answer failed its checks',
  sso_unverified_email: 'the provider had not verified the email',
  sso_domain_not_allowed: 'the email’s domain is not allowed for single sign-on',
  wrong_code: 'wrong authenticator code',
  replayed_code: 'an authenticator code already used',
  wrong_recovery_code: 'wrong or used recovery code',
  wrong_passkey: 'the passkey was not accepted',
};

export const SIGN_IN_SENTENCES: TDescribers<
  'auth.sign_in' | 'auth.sign_out' | 'auth.sign_in_failed' | 'auth.sign_in_limited' | 'auth.session_revoked' | 'auth.password_change'
> = {
  'auth.password_change': (d, s) =>
    `${s.who ?? s.subject} changed their password${d.sessionsEnded ? `, signing out ${plural(d.sessionsEnded, 'other session')}` : ''}`,
  'auth.sign_in': (d, s) => `${s.who ?? s.subject} signed in${d.method ? ` (${SESSION_METHOD_LABEL[d.method]})` : ''}`,
  'auth.session_revoked': (d, s) =>
    `${s.who ?? s.subject} signed out ${d.current ? 'the session they were using' : 'a session'}${d.method ? ` (${SESSION_METHOD_LABEL[d.method]})` : ''}`,
  'auth.sign_out': (_d, s) => `${s.who ?? s.subject} signed out`,
  'auth.sign_in_failed': (d, s) => {
    const email = d.email ?? (s.kind === 'email' ? s.rest : s.subject);
    // A row from before reasons were recorded says what the person was told.
    const reason = d.reason ? SIGN_IN_REFUSAL[d.reason] : 'wrong email or password';
    return `A sign-in as ${email} failed: ${reason}`;
  },
  'auth.sign_in_limited': (d, s) => {
    const until = dateOf(d.blocked_until);
    const whom = d.limited === 'address' ? `from ${d.address ?? s.rest}` : `as ${d.email ?? s.rest}`;
    const after =
      d.attempts !== undefined && d.window_minutes !== undefined
        ? ` after ${plural(d.attempts, 'attempt')} in ${plural(d.window_minutes, 'minute')}`
        : '';
    return `Sign-ins ${whom} were blocked${after}${until ? `, until ${until}` : ''}`;
  },
};
