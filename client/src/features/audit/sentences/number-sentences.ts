import type { TAuditDetail } from '../../../../../shared/audit/audit-details';
import { listed, phone, plural } from '../audit-detail-words';
import type { TDescribers, TSentence } from './audit-sentence';

/** An opt-out or back in: by the client's own text (the system), or recorded or cleared by a person. */
function optSentence(out: boolean, d: Partial<TAuditDetail<'client.opt_in'>>, s: TSentence): string {
  const numbers = listed((Array.isArray(d.digits) ? d.digits : [d.digits]).map((x) => phone(x)));
  const whose = s.kind === 'client' ? `${s.subject} (${numbers})` : numbers;
  if (s.who) return `${s.who} ${out ? 'recorded that' : 'cleared the opt-out of'} ${whose}${out ? ' opted out of chat messages' : ''}`;
  return `${whose} ${out ? 'opted out of chat messages' : 'opted back in to chat messages'}${d.source ? ` (${d.source})` : ''}`;
}

/** A client's numbers and the records that follow them. */
export const NUMBER_SENTENCES: TDescribers<
  | 'inbox.link'
  | 'inbox.unlink'
  | 'client.number_add'
  | 'client.number_remove'
  | 'client.opt_out'
  | 'client.opt_in'
  | 'chat.reconciled'
  | 'communication.refile'
> = {
  'inbox.link': (d, s) =>
    `${s.actor} linked ${phone(d.digits)} to ${s.subject}${d.moved ? `, moving ${plural(d.moved, 'message')} to their conversation` : ''}`,
  'inbox.unlink': (d, s) =>
    `${s.actor} unlinked ${phone(d.digits)} from ${s.subject}${d.moved ? `; ${plural(d.moved, 'message')} went back to the number’s own conversation` : ''}`,
  'client.number_add': (d, s) => `${s.actor} added the number ${phone(d.digits)} to ${s.subject}`,
  'client.number_remove': (d, s) => `${s.actor} removed the number ${phone(d.digits)} from ${s.subject}`,
  'client.opt_out': (d, s) => optSentence(true, d, s),
  'client.opt_in': (d, s) => optSentence(false, d, s),
  'chat.reconciled': (d, s) =>
    d.undone
      ? `${s.actor} undid a match of a message in ${s.chatOf} to a receipt: ${d.undone}`
      : `${s.actor} matched a message in ${s.chatOf} whose sending was uncertain to the provider’s receipt: it was sent`,
  'communication.refile': (d, s) => {
    const what = d.records ? plural(d.records.length, 'record') : 'records';
    const onto = d.caseId === null ? 'no case' : (s.item.related.caseId ?? (d.caseId !== undefined ? `case #${d.caseId}` : 'another case'));
    return `${s.actor} moved ${what} of ${s.subject} to ${onto}`;
  },
};
