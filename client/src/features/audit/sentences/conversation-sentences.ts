import { formatBytes } from '../../../../../shared/media-limits';
import { dateOf, phone, possessive } from '../audit-detail-words';
import type { TDescribers } from './audit-sentence';

/** A person named by the server (`related`), else by their id, else nobody. */
const personOf = (name: string | undefined, id: number | null | undefined) => name ?? (typeof id === 'number' ? `user #${id}` : null);

/** Who handles a conversation and its state (server/ownership/README.md "Ownership"), a case's status, a file read. */
export const CONVERSATION_SENTENCES: TDescribers<'inbox.assign' | 'inbox.state' | 'client.responsible' | 'case.status' | 'media.view'> = {
  'inbox.assign': (d, s) => {
    const to = personOf(s.item.related.to, d.to);
    const from = personOf(s.item.related.from, d.from);
    if (to === null) return `${s.actor} unassigned ${s.conversation}${from ? ` (it was ${possessive(from)})` : ''}`;
    if (s.item.user && d.to === s.item.user.id) return `${s.actor} took ${s.conversation}${from ? ` from ${from}` : ''}`;
    return `${s.actor} assigned ${s.conversation} to ${to}${from ? ` (it was ${possessive(from)})` : ''}`;
  },
  'inbox.state': (d, s) => {
    if (d.to === 'snoozed') {
      const until = dateOf(d.snoozeUntil);
      return `${s.actor} snoozed ${s.conversation}${until ? ` until ${until}` : ''}`;
    }
    if (d.to === 'done') return `${s.actor} marked ${s.conversation} done`;
    if (d.to === 'open' && d.from === 'snoozed' && !s.who)
      return `The system reopened a snoozed conversation with ${s.kind === 'phone' ? phone(s.rest) : s.subject}: its snooze ended`;
    if (d.to === 'open') return `${s.actor} reopened ${s.conversation}`;
    return `${s.actor} changed ${s.conversation} from ${d.from ?? '?'} to ${d.to ?? '?'}`;
  },
  'client.responsible': (d, s) => {
    const to = personOf(s.item.related.to, d.to);
    if (to === null) return `${s.actor} left ${s.subject} with no responsible person`;
    return `${s.actor} made ${to} the responsible person for ${s.subject}`;
  },
  'case.status': (d, s) => {
    if (d.to === 'closed') return `${s.actor} closed ${s.subject}`;
    if (d.to === 'open') return `${s.actor} reopened ${s.subject}`;
    return `${s.actor} changed the status of ${s.subject}`;
  },
  'media.view': (d, s) => {
    const file = s.item.related.attachmentId ?? 'a file';
    const size = d.bytes !== undefined ? ` (${formatBytes(d.bytes)})` : '';
    if (s.kind === 'attachment') return `${s.actor} opened ${file}${size}, an upload not yet sent`;
    return `${s.actor} opened ${file}${size} in ${s.chatOf}`;
  },
};
