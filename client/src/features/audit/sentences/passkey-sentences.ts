import { plural } from '../audit-detail-words';
import type { TDescribers } from './audit-sentence';

/** Passkeys people add to and remove from their own account (Settings › Passkeys). */
export const PASSKEY_SENTENCES: TDescribers<'auth.passkey_add' | 'auth.passkey_remove'> = {
  'auth.passkey_add': (d, s) => `${s.who ?? s.subject} added a passkey${d.name ? ` (“${d.name}”)` : ''}`,
  'auth.passkey_remove': (d, s) => {
    const ended = d.sessionsEnded ? `: ${plural(d.sessionsEnded, 'other session')} ended` : '';
    return `${s.who ?? s.subject} removed a passkey${d.name ? ` (“${d.name}”)` : ''}${ended}`;
  },
};
