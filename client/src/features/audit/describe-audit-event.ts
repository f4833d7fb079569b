import { formatBytes } from '../../../../shared/media-limits';
import { showInvisibleCharacters } from '../../../../shared/visible-text';
import { formatDateTime, formatPhone } from '../../lib/format';
import { ACTION_LABEL, type TAuditItem } from './audit-actions';
import { count, listed, numberWords, plural, text, type TDetail } from './audit-detail-words';
import { businessHoursChanges } from './describe-business-hours-change';

/** "Amelia Hart's", "James's". */
const possessive = (name: string) => `${name}’s`;
const phone = (digits: string | null) => (digits ? formatPhone(`+${digits.replace(/^\+/, '')}`) : 'a number');
const SHORT_HASH = 12;
const shortHash = (hash: string) => `${hash.slice(0, SHORT_HASH)}…`;
const dateOf = (value: string | null): string | null => {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : formatDateTime(date);
};
const ROLE_WORD: Record<string, string> = { director: 'a director', staff: 'staff' };
const role = (value: string | null) => (value ? (ROLE_WORD[value] ?? value) : 'another role');

/** What the subject is called: its name from the server, else its kind and id ("client #12"). */
export function subjectNameOf(item: Pick<TAuditItem, 'subject' | 'subjectLabel'>): string {
  if (item.subjectLabel) return item.subjectLabel;
  const [kind = '', rest = ''] = splitSubject(item.subject);
  if (kind === 'attachment') return 'a file not yet sent';
  if (kind === 'retention' && rest) return `retention batch ${rest.slice(0, 8)}`;
  if (/^\d+$/.test(rest)) return `${kind} #${rest}`;
  return item.subject;
}

function splitSubject(subject: string): [string, string] {
  const colon = subject.indexOf(':');
  return colon < 0 ? [subject, ''] : [subject.slice(0, colon), subject.slice(colon + 1)];
}

const SIGN_IN_REFUSAL: Record<string, string> = {
  wrong_password: 'wrong password',
  unknown_email: 'no account has this email',
  deactivated: 'the account is deactivated',
  invalid_email: 'the email has a character no address can have',
};

/** What a scheduled send is, by its kind: "a message", "the file letter.pdf", "the template “appointment_reminder”". */
function scheduledWhat(d: TDetail, related: TAuditItem['related']): string {
  const kind = text(d, 'kind');
  if (kind === 'template') return text(d, 'template') ? `the template “${text(d, 'template')}”` : 'a template';
  if (kind === 'file') return related.attachmentId ? `the file ${related.attachmentId}` : 'a file';
  return 'a message';
}

const RETENTION_GROUNDS: Record<string, string> = {
  legal_claims: 'the records are needed for legal claims',
  legal_obligation: 'the firm must keep them by law',
  hold: 'they are under a legal hold',
};

/** A court bundle's numbers: ": 12 exhibits (1 missing), 34 messages, 1.2 MB, SHA-256 ab12…". */
function bundleFacts(d: TDetail): string {
  const exhibits = count(d, 'exhibits');
  // A count, or the list of the exhibits left out.
  const missing = Array.isArray(d.missingExhibits) ? d.missingExhibits.length : count(d, 'missingExhibits');
  const facts = [
    exhibits !== null ? `${plural(exhibits, 'exhibit')}${missing ? ` (${numberWords.format(missing)} missing)` : ''}` : null,
    count(d, 'messages') !== null ? plural(count(d, 'messages')!, 'message') : null,
    count(d, 'bytes') !== null ? formatBytes(count(d, 'bytes')!) : null,
    text(d, 'sha256') ? `SHA-256 ${shortHash(text(d, 'sha256')!)}` : null,
  ].filter((f): f is string => f !== null);
  return facts.length ? `: ${facts.join(', ')}` : '';
}

// Subjects that name no record, or none the trail knows: the sentence says all there is. A
// verification of a file no export in the trail has is about `export` (README "Evidence exports").
const NAMES_NO_RECORD = /^(provider|templates|audit|business_hours|export)$/;

/** Whether an event is about nothing a reader can open (the About column shows "—"): no record, or the person acting themself. */
export function isAboutNoRecord(item: Pick<TAuditItem, 'subject' | 'user'>): boolean {
  return NAMES_NO_RECORD.test(item.subject) || (item.user !== null && item.subject === `user:${item.user.id}`);
}

/** The export event a verification found (its `auditEventId`), for a link to it; null for any other event. */
export function verifiedExportEventOf(item: Pick<TAuditItem, 'action' | 'detail'>): number | null {
  if (item.action !== 'export.verify') return null;
  const id = count(item.detail, 'auditEventId');
  return id !== null && Number.isInteger(id) && id > 0 ? id : null;
}

/**
 * One sentence a person can read for an event: who did what to what, with the numbers that matter
 * ("Dee Director exported Amelia Hart’s chat as PDF (12 messages, 3.6 KB, SHA-256 ab12…)"). Names
 * come from the server (`subjectLabel`, `related`); a detail of an unexpected shape falls back to the
 * action's label. Text from outside (names, emails, file names, reasons) is in it, so every
 * invisible or direction-changing character is shown by its code.
 */
export function describeAuditEvent(item: TAuditItem): string {
  return showInvisibleCharacters(sentenceOf(item));
}

function sentenceOf(item: TAuditItem): string {
  const d: TDetail = item.detail;
  const who = item.user?.name ?? null;
  const actor = who ?? 'The system';
  const subject = subjectNameOf(item);
  const [kind, rest] = splitSubject(item.subject);
  const isClient = (kind === 'client' || kind === 'communication') && !item.subjectErased && item.subjectLabel !== null;
  /** "Amelia Hart’s chat", "the chat of HART-2026-001 · …", "the chat with +44 7700 900123". */
  const chatOf = kind === 'case' ? `the chat of ${subject}` : isClient ? `${possessive(subject)} chat` : `the chat with ${subject}`;
  const conversation = `the conversation with ${kind === 'phone' ? phone(rest) : subject}`;
  const isSelf = item.user !== null && item.subject === `user:${item.user.id}`;
  const person = isSelf ? 'themself' : subject;

  switch (item.action) {
    case 'auth.sign_in':
      return `${who ?? subject} signed in`;
    case 'auth.sign_out':
      return `${who ?? subject} signed out`;
    case 'auth.sign_in_failed': {
      const email = text(d, 'email') ?? (kind === 'email' ? rest : subject);
      const reason = SIGN_IN_REFUSAL[text(d, 'reason') ?? ''] ?? 'wrong email or password';
      return `A sign-in as ${email} failed: ${reason}`;
    }
    case 'auth.sign_in_limited': {
      const attempts = count(d, 'attempts');
      const minutes = count(d, 'window_minutes');
      const until = dateOf(text(d, 'blocked_until'));
      const whom = text(d, 'limited') === 'address' ? `from ${text(d, 'address') ?? rest}` : `as ${text(d, 'email') ?? rest}`;
      const after = attempts !== null && minutes !== null ? ` after ${plural(attempts, 'attempt')} in ${plural(minutes, 'minute')}` : '';
      return `Sign-ins ${whom} were blocked${after}${until ? `, until ${until}` : ''}`;
    }
    case 'inbox.link': {
      const moved = count(d, 'moved');
      return `${actor} linked ${phone(text(d, 'digits'))} to ${subject}${moved ? `, moving ${plural(moved, 'message')} to their conversation` : ''}`;
    }
    case 'inbox.unlink': {
      const moved = count(d, 'moved');
      return `${actor} unlinked ${phone(text(d, 'digits'))} from ${subject}${moved ? `; ${plural(moved, 'message')} went back to the number’s own conversation` : ''}`;
    }
    case 'client.number_add':
      return `${actor} added the number ${phone(text(d, 'digits'))} to ${subject}`;
    case 'client.number_remove':
      return `${actor} removed the number ${phone(text(d, 'digits'))} from ${subject}`;
    case 'export.create': {
      const format = text(d, 'format');
      if (format === 'zip') return `${actor} exported the court bundle of ${subject}${bundleFacts(d)}`;
      const facts = [
        count(d, 'messages') !== null ? plural(count(d, 'messages')!, 'message') : null,
        count(d, 'bytes') !== null ? formatBytes(count(d, 'bytes')!) : null,
        text(d, 'sha256') ? `SHA-256 ${shortHash(text(d, 'sha256')!)}` : null,
      ].filter((f): f is string => f !== null);
      return `${actor} exported ${chatOf}${format ? ` as ${format.toUpperCase()}` : ''}${facts.length ? ` (${facts.join(', ')})` : ''}`;
    }
    case 'export.verify': {
      const verdict = text(d, 'verdict');
      if (verdict === 'unknown') return `${actor} verified a copy: unknown (no export in the trail has it)`;
      // Not an export but a file the firm holds (an exhibit taken out of a bundle, say).
      const held = count(d, 'attachmentId') !== null && count(d, 'auditEventId') === null;
      return `${actor} verified a copy${verdict ? `: ${verdict}` : ''}${held ? ' — identical to a file the firm holds' : ''}`;
    }
    case 'settings.check_connection': {
      const status = text(d, 'status');
      return `${actor} checked the provider connection${status ? `: ${status}` : ''}`;
    }
    case 'templates.refresh': {
      const n = count(d, 'count');
      return `${actor} refreshed the approved templates${n !== null ? ` (${plural(n, 'template')})` : ''}`;
    }
    case 'client.opt_out':
    case 'client.opt_in': {
      const out = item.action === 'client.opt_out';
      const digits = Array.isArray(d.digits) ? d.digits.filter((x): x is string => typeof x === 'string') : [text(d, 'digits')];
      const numbers = listed(digits.map((x) => phone(x)));
      const source = text(d, 'source');
      const whose = kind === 'client' ? `${subject} (${numbers})` : numbers;
      if (who) return `${who} ${out ? 'recorded that' : 'cleared the opt-out of'} ${whose}${out ? ' opted out of chat messages' : ''}`;
      return `${whose} ${out ? 'opted out of chat messages' : 'opted back in to chat messages'}${source ? ` (${source})` : ''}`;
    }
    case 'chat.reconciled': {
      const undone = text(d, 'undone');
      if (undone) return `${actor} undid a match of a message in ${chatOf} to a receipt: ${undone}`;
      return `${actor} matched a message in ${chatOf} whose sending was uncertain to the provider’s receipt: it was sent`;
    }
    case 'communication.refile': {
      const records = Array.isArray(d.records) ? d.records.length : null;
      const what = records !== null ? plural(records, 'record') : 'records';
      const onto =
        d.caseId === null
          ? 'no case'
          : (item.related.caseId ?? (count(d, 'caseId') !== null ? `case #${count(d, 'caseId')}` : 'another case'));
      return `${actor} moved ${what} of ${subject} to ${onto}`;
    }
    case 'user.add': {
      const email = text(d, 'email');
      return `${actor} added ${subject}${email && email !== subject ? ` (${email})` : ''} as ${role(text(d, 'role'))}`;
    }
    case 'user.role_change': {
      const from = text(d, 'from');
      return `${actor} made ${person} ${role(text(d, 'to'))}${from ? ` (was ${role(from)})` : ''}`;
    }
    case 'user.deactivate': {
      const sessions = count(d, 'sessionsEnded');
      const conversations = count(d, 'conversationsUnassigned');
      const clients = count(d, 'clientsNoLongerResponsible');
      const effects = [
        sessions !== null ? (sessions === 0 ? 'they had no open session' : `ended ${plural(sessions, 'session')}`) : null,
        conversations ? `${plural(conversations, 'conversation')} went back to Unassigned` : null,
        clients ? `${plural(clients, 'client')} lost their responsible person` : null,
      ].filter((e): e is string => e !== null);
      return `${actor} deactivated ${person}${effects.length ? `: ${listed(effects)}` : ''}`;
    }
    case 'user.reactivate': {
      const was = text(d, 'role');
      return `${actor} reactivated ${person}${was ? ` (${role(was)})` : ''}`;
    }
    case 'access.restrict':
      return `${actor} restricted ${subject} to its members`;
    case 'access.unrestrict':
      return `${actor} lifted the restriction on ${subject}`;
    case 'access.member_add':
      return `${actor} made ${text(d, 'name') ?? 'someone'} a member of ${subject}`;
    case 'access.member_remove':
      return `${actor} removed ${text(d, 'name') ?? 'someone'} from the members of ${subject}`;
    case 'access.screen': {
      const reason = text(d, 'reason');
      const whom = d.self === true ? 'themself' : (text(d, 'name') ?? 'someone');
      return `${actor} screened ${whom} from ${subject}${reason ? `: “${reason}”` : ''}`;
    }
    case 'access.unscreen':
      return `${actor} lifted ${possessive(text(d, 'name') ?? 'someone')} screen from ${subject}`;
    case 'access.denied':
      return `${actor} tried to open ${subject}, which they are walled from${text(d, 'path') ? ` (${text(d, 'path')})` : ''}`;
    case 'inbox.assign': {
      const to = item.related.to ?? (count(d, 'to') !== null ? `user #${count(d, 'to')}` : null);
      const from = item.related.from ?? (count(d, 'from') !== null ? `user #${count(d, 'from')}` : null);
      if (to === null) return `${actor} unassigned ${conversation}${from ? ` (it was ${possessive(from)})` : ''}`;
      if (item.user && d.to === item.user.id) return `${actor} took ${conversation}${from ? ` from ${from}` : ''}`;
      return `${actor} assigned ${conversation} to ${to}${from ? ` (it was ${possessive(from)})` : ''}`;
    }
    case 'inbox.state': {
      const to = text(d, 'to');
      const from = text(d, 'from');
      if (to === 'snoozed') {
        const until = dateOf(text(d, 'snoozeUntil'));
        return `${actor} snoozed ${conversation}${until ? ` until ${until}` : ''}`;
      }
      if (to === 'done') return `${actor} marked ${conversation} done`;
      if (to === 'open' && from === 'snoozed' && !who)
        return `The system reopened a snoozed conversation with ${kind === 'phone' ? phone(rest) : subject}: its snooze ended`;
      if (to === 'open') return `${actor} reopened ${conversation}`;
      return `${actor} changed ${conversation} from ${from ?? '?'} to ${to ?? '?'}`;
    }
    case 'client.responsible': {
      const to = item.related.to ?? (count(d, 'to') !== null ? `user #${count(d, 'to')}` : null);
      if (to === null) return `${actor} left ${subject} with no responsible person`;
      return `${actor} made ${to} the responsible person for ${subject}`;
    }
    case 'case.status': {
      const to = text(d, 'to');
      if (to === 'closed') return `${actor} closed ${subject}`;
      if (to === 'open') return `${actor} reopened ${subject}`;
      return `${actor} changed the status of ${subject}`;
    }
    case 'media.view': {
      const file = item.related.attachmentId ?? 'a file';
      const bytes = count(d, 'bytes');
      const size = bytes !== null ? ` (${formatBytes(bytes)})` : '';
      if (kind === 'attachment') return `${actor} opened ${file}${size}, an upload not yet sent`;
      return `${actor} opened ${file}${size} in ${chatOf}`;
    }
    case 'hold.place': {
      const reason = text(d, 'reason');
      return `${actor} placed a legal hold on ${subject}${reason ? `: “${reason}”` : ''}`;
    }
    case 'hold.release':
      return `${actor} released the legal hold on ${subject}`;
    case 'retention.destroy': {
      const parts = [
        ['clients', 'client'],
        ['cases', 'case'],
        ['records', 'record'],
        ['files', 'file'],
      ]
        .map(([key, one]) => (count(d, key!) ? plural(count(d, key!)!, one!) : null))
        .filter((p): p is string => p !== null);
      const bytes = count(d, 'bytes');
      const leftOut = count(d, 'leftOut');
      const what = parts.length ? `${listed(parts)}${bytes ? ` (${formatBytes(bytes)})` : ''}` : 'nothing';
      const kept = leftOut ? `; ${plural(leftOut, 'item')} left out` : '';
      if (text(d, 'kind') === 'erasure') return `${actor} erased ${what}${kind === 'client' ? ` of ${subject}` : ''} on request${kept}`;
      return `${actor} destroyed ${what} past their retention period${kept}`;
    }
    case 'erasure.request': {
      const received = dateOf(text(d, 'receivedAt'));
      const note = text(d, 'note');
      return `${actor} recorded a request from ${subject} to erase their records${received ? `, received ${received}` : ''}${note ? `: “${note}”` : ''}`;
    }
    case 'erasure.decide': {
      const request = count(d, 'requestId') !== null ? ` (request #${count(d, 'requestId')})` : '';
      if (text(d, 'decision') === 'erase') return `${actor} decided to erase the records of ${subject}${request}`;
      if (text(d, 'decision') === 'refuse') {
        const grounds = RETENTION_GROUNDS[text(d, 'grounds') ?? ''];
        return `${actor} refused the erasure request of ${subject}${request}${grounds ? `: ${grounds}` : ''}`;
      }
      return `${actor} decided the erasure request of ${subject}${request}`;
    }
    case 'audit.verify': {
      const rows = count(d, 'rows');
      const headId = count(d, 'headId');
      const events = rows !== null ? plural(rows, 'event') : 'the events';
      if (d.ok === true) return `${actor} verified the trail: ${events}, unbroken${headId !== null ? `, head #${headId}` : ''}`;
      if (d.ok === false) {
        const bad = count(d, 'firstBadId');
        return `${actor} verified the trail: it does not verify${bad !== null ? ` at event #${bad}` : ''}`;
      }
      return `${actor} verified the trail`;
    }
    case 'chat.schedule': {
      const when = dateOf(text(d, 'sendAt'));
      const onCase = item.related.caseId ? `, on ${item.related.caseId}` : '';
      const unless = d.unlessReplied === true ? ', unless they reply first' : '';
      return `${actor} scheduled ${scheduledWhat(d, item.related)} to ${subject}${when ? ` for ${when}` : ''}${onCase}${unless}`;
    }
    case 'chat.reschedule': {
      const from = dateOf(text(d, 'from'));
      const to = dateOf(text(d, 'sendAt'));
      return `${actor} rescheduled ${scheduledWhat(d, item.related)} to ${subject}${from ? ` from ${from}` : ''}${to ? ` to ${to}` : ''}`;
    }
    case 'chat.edit_scheduled': {
      const when = dateOf(text(d, 'sendAt'));
      const what = text(d, 'kind') === 'file' ? 'the caption of a file' : 'the text of a message';
      return `${actor} edited ${what} to ${subject}${when ? ` scheduled for ${when}` : ' that was scheduled'}`;
    }
    case 'chat.cancel_scheduled': {
      const when = dateOf(text(d, 'sendAt'));
      const notSent = text(d, 'was') === 'not_sent' ? ', which had not been sent at its time' : '';
      return `${actor} cancelled ${scheduledWhat(d, item.related)} to ${subject}${when ? ` scheduled for ${when}` : ''}${notSent}`;
    }
    case 'settings.business_hours': {
      const changes = businessHoursChanges(d);
      const verb = d.first === true ? 'set the business hours' : 'changed the business hours';
      return `${actor} ${verb}${changes.length ? `: ${changes.join('; ')}` : ''}`;
    }
    default: {
      const action: string = item.action;
      const label = (ACTION_LABEL as Record<string, string>)[action] ?? action;
      return `${actor}: ${label}${item.subject ? ` (${subject})` : ''}`;
    }
  }
}
