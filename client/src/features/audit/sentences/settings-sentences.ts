import { plural } from '../audit-detail-words';
import { businessHoursChanges } from '../describe-business-hours-change';
import type { TDescribers } from './audit-sentence';

/** The firm's settings: the provider connection, the templates, the business hours. */
export const SETTINGS_SENTENCES: TDescribers<
  'settings.check_connection' | 'templates.refresh' | 'settings.business_hours' | 'settings.security' | 'settings.read_receipts'
> = {
  'settings.check_connection': (d, s) =>
    `${s.actor} checked the provider connection${d.numberId ? ` of business number #${d.numberId}` : ''}${d.status ? `: ${d.status}` : ''}`,
  'templates.refresh': (d, s) =>
    `${s.actor} refreshed the approved templates${d.count !== undefined ? ` (${plural(d.count, 'template')})` : ''}`,
  'settings.business_hours': (d, s) => {
    const changes = businessHoursChanges(d);
    const verb = d.first === true ? 'set the business hours' : 'changed the business hours';
    return `${s.actor} ${verb}${changes.length ? `: ${changes.join('; ')}` : ''}`;
  },
  'settings.security': (d, s) => {
    const changes = [
      d.requireMfa && `two-step sign-in required of ${MFA_WHO[d.requireMfa.to]} (was ${MFA_WHO[d.requireMfa.from]})`,
      d.sessionIdleMinutes &&
        `idle sessions end after ${plural(d.sessionIdleMinutes.to, 'minute')} (was ${plural(d.sessionIdleMinutes.from, 'minute')})`,
      d.sessionMaxHours &&
        `sessions end after ${plural(d.sessionMaxHours.to, 'hour')} at most (was ${plural(d.sessionMaxHours.from, 'hour')})`,
    ].filter(Boolean);
    return `${s.actor} changed the sign-in policy${changes.length ? `: ${changes.join('; ')}` : ''}`;
  },
  'settings.read_receipts': (d, s) =>
    `${s.actor} changed the read-receipt policy${d.to ? ` to “${d.to}”` : ''}${d.from ? ` (was “${d.from}”)` : ''}`,
};

const MFA_WHO = { none: 'nobody', directors: 'directors', everyone: 'everyone' } as const;
