import type { TAuditDetail } from '../../../../../shared/audit/audit-details';
import type { TAuditItem } from '../audit-actions';
import { dateOf } from '../audit-detail-words';
import type { TDescribers } from './audit-sentence';

/** What a scheduled send is, by its kind: "a message", "the file letter.pdf", "the template “appointment_reminder”". */
function scheduledWhat(d: Partial<TAuditDetail<'chat.schedule'>>, related: TAuditItem['related']): string {
  if (d.kind === 'template') return d.template ? `the template “${d.template}”` : 'a template';
  if (d.kind === 'file') return related.attachmentId ? `the file ${related.attachmentId}` : 'a file';
  return 'a message';
}

/** Scheduled sends (server/messaging/README.md "Scheduled sends"): what, to whom and when, never their words. */
export const SCHEDULED_SENTENCES: TDescribers<'chat.schedule' | 'chat.reschedule' | 'chat.edit_scheduled' | 'chat.cancel_scheduled'> = {
  'chat.schedule': (d, s) => {
    const when = dateOf(d.sendAt);
    const onCase = s.item.related.caseId ? `, on ${s.item.related.caseId}` : '';
    const unless = d.unlessReplied === true ? ', unless they reply first' : '';
    return `${s.actor} scheduled ${scheduledWhat(d, s.item.related)} to ${s.subject}${when ? ` for ${when}` : ''}${onCase}${unless}`;
  },
  'chat.reschedule': (d, s) => {
    const from = dateOf(d.from);
    const to = dateOf(d.sendAt);
    return `${s.actor} rescheduled ${scheduledWhat(d, s.item.related)} to ${s.subject}${from ? ` from ${from}` : ''}${to ? ` to ${to}` : ''}`;
  },
  'chat.edit_scheduled': (d, s) => {
    const when = dateOf(d.sendAt);
    const what = d.kind === 'file' ? 'the caption of a file' : 'the text of a message';
    return `${s.actor} edited ${what} to ${s.subject}${when ? ` scheduled for ${when}` : ' that was scheduled'}`;
  },
  'chat.cancel_scheduled': (d, s) => {
    const when = dateOf(d.sendAt);
    const notSent = d.was === 'not_sent' ? ', which had not been sent at its time' : '';
    return `${s.actor} cancelled ${scheduledWhat(d, s.item.related)} to ${s.subject}${when ? ` scheduled for ${when}` : ''}${notSent}`;
  },
};
