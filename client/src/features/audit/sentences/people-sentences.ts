import { listed, plural, possessive, role } from '../audit-detail-words';
import { describeAccessDenied } from './access-denied-sentence';
import type { TDescribers } from './audit-sentence';

/** People's accounts, and the walls around matters (server/access/README.md "Ethical walls"). */
export const PEOPLE_SENTENCES: TDescribers<
  | 'user.add'
  | 'user.role_change'
  | 'user.deactivate'
  | 'user.reactivate'
  | 'user.sessions_ended'
  | 'user.invite'
  | 'user.accept'
  | 'user.invite_revoke'
  | 'access.restrict'
  | 'access.unrestrict'
  | 'access.member_add'
  | 'access.member_remove'
  | 'access.screen'
  | 'access.unscreen'
  | 'access.denied'
> = {
  'user.add': (d, s) => `${s.actor} added ${s.subject}${d.email && d.email !== s.subject ? ` (${d.email})` : ''} as ${role(d.role)}`,
  'user.role_change': (d, s) => `${s.actor} made ${s.person} ${role(d.to)}${d.from ? ` (was ${role(d.from)})` : ''}`,
  'user.deactivate': (d, s) => {
    const sessions = d.sessionsEnded;
    const effects = [
      sessions !== undefined ? (sessions === 0 ? 'they had no open session' : `ended ${plural(sessions, 'session')}`) : null,
      d.conversationsUnassigned ? `${plural(d.conversationsUnassigned, 'conversation')} went back to Unassigned` : null,
      d.clientsNoLongerResponsible ? `${plural(d.clientsNoLongerResponsible, 'client')} lost their responsible person` : null,
    ].filter((e): e is string => e !== null);
    return `${s.actor} deactivated ${s.person}${effects.length ? `: ${listed(effects)}` : ''}`;
  },
  'user.reactivate': (d, s) => `${s.actor} reactivated ${s.person}${d.role ? ` (${role(d.role)})` : ''}`,
  'user.sessions_ended': (d, s) => {
    const n = d.sessionsEnded;
    const whose = s.person === 'themself' ? 'their own' : possessive(s.person);
    if (n === undefined) return `${s.actor} ended ${whose} sessions`;
    if (n === 0) return `${s.actor} ended ${whose} sessions: there was no open session`;
    return `${s.actor} ended ${n === 1 ? `${whose} one session` : `all ${n} of ${whose} sessions`}`;
  },
  'user.invite': (d, s) => `${s.actor} invited ${d.name ?? 'someone'} (${s.rest || s.subject})${d.role ? ` as ${role(d.role)}` : ''}`,
  'user.accept': (d, s) => `${s.who ?? s.subject} accepted an invitation${d.role ? ` as ${role(d.role)}` : ''}`,
  'user.invite_revoke': (_d, s) => `${s.actor} withdrew the invitation of ${s.rest || s.subject}`,
  'access.restrict': (_d, s) => `${s.actor} restricted ${s.subject} to its members`,
  'access.unrestrict': (_d, s) => `${s.actor} lifted the restriction on ${s.subject}`,
  'access.member_add': (d, s) => `${s.actor} made ${d.name ?? 'someone'} a member of ${s.subject}`,
  'access.member_remove': (d, s) => `${s.actor} removed ${d.name ?? 'someone'} from the members of ${s.subject}`,
  'access.screen': (d, s) => {
    const whom = d.self === true ? 'themself' : (d.name ?? 'someone');
    return `${s.actor} screened ${whom} from ${s.subject}${d.reason ? `: “${d.reason}”` : ''}`;
  },
  'access.unscreen': (d, s) => `${s.actor} lifted ${possessive(d.name ?? 'someone')} screen from ${s.subject}`,
  'access.denied': describeAccessDenied,
};
