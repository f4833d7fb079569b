import type { TAuditAction, TAuditDetail } from '../../../../../shared/audit/audit-details';
import type { TAuditItem } from '../audit-actions';
import { phone, possessive } from '../audit-detail-words';

/** What every sentence may name, in the words the page uses. */
export type TSentence = {
  item: TAuditItem;
  /** The person who acted; null for the system or an anonymous caller. */
  who: string | null;
  /** Who acted, as a sentence starts: their name, or "The system". */
  actor: string;
  /** What the event is about, named (subjectNameOf). */
  subject: string;
  /** The subject's kind and the rest of it: `client` and `12` of `client:12`. */
  kind: string;
  rest: string;
  /** "Amelia Hart’s chat", "the chat of HART-2026-001 · …", "the chat with +44 7700 900123". */
  chatOf: string;
  /** "the conversation with Amelia Hart" (or with a number). */
  conversation: string;
  /** The person an event about a person is about: "themself" when they acted on themselves. */
  person: string;
};

/** One action's sentence, from its detail as far as it reads (readAuditDetail). */
export type TDescriber<A extends TAuditAction> = (d: Partial<TAuditDetail<A>>, s: TSentence) => string;
/** The sentences of a set of actions: one describer each, typed by that action's detail. */
export type TDescribers<A extends TAuditAction> = { [K in A]: TDescriber<K> };

export function splitSubject(subject: string): [string, string] {
  const colon = subject.indexOf(':');
  return colon < 0 ? [subject, ''] : [subject.slice(0, colon), subject.slice(colon + 1)];
}

/** What the subject is called: its name from the server, else its kind and id ("client #12"). */
export function subjectNameOf(item: Pick<TAuditItem, 'subject' | 'subjectLabel'>): string {
  if (item.subjectLabel) return item.subjectLabel;
  const [kind = '', rest = ''] = splitSubject(item.subject);
  if (kind === 'attachment') return 'a file not yet sent';
  if (kind === 'retention' && rest) return `retention batch ${rest.slice(0, 8)}`;
  if (/^\d+$/.test(rest)) return `${kind} #${rest}`;
  return item.subject;
}

export function sentenceOf(item: TAuditItem): TSentence {
  const who = item.user?.name ?? null;
  const subject = subjectNameOf(item);
  const [kind, rest] = splitSubject(item.subject);
  const isClient = (kind === 'client' || kind === 'communication') && !item.subjectErased && item.subjectLabel !== null;
  const isSelf = item.user !== null && item.subject === `user:${item.user.id}`;
  return {
    item,
    who,
    actor: who ?? 'The system',
    subject,
    kind,
    rest,
    chatOf: kind === 'case' ? `the chat of ${subject}` : isClient ? `${possessive(subject)} chat` : `the chat with ${subject}`,
    conversation: `the conversation with ${kind === 'phone' ? phone(rest) : subject}`,
    person: isSelf ? 'themself' : subject,
  };
}
