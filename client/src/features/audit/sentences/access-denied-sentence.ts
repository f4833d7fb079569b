import type { TAuditDetail } from '../../../../../shared/audit/audit-details';
import { possessive } from '../audit-detail-words';
import type { TSentence } from './audit-sentence';

type TDenied = Partial<TAuditDetail<'access.denied'>>;

// A walled attempt in words (server/access/README.md "What the trail records"): who, what they tried
// on which matter, and the wall that stopped them — never the procedure it came through.

/** What they tried, on a matter the reader may see. */
function attempt(d: TDenied, s: TSentence): string {
  const matter = s.kind === 'case' ? `the case ${s.subject}` : s.subject;
  switch (d.opened) {
    case 'client':
      return `open ${possessive(s.subject)} page`;
    case 'case':
      return `open ${matter}`;
    case 'conversation':
      return `open ${s.conversation}`;
    case 'file':
      return `open a file in ${s.chatOf}`;
    case 'export':
      return `export ${s.chatOf}`;
    case 'change':
      return `change something on ${matter}`;
    default:
      return `open ${matter}`;
  }
}

/** The same, on a matter the reader is walled from themself: it is not named. */
function hiddenAttempt(d: TDenied): string {
  if (d.opened === 'file') return 'open a file in a matter you are screened from';
  if (d.opened === 'export') return 'export the chat of a matter you are screened from';
  if (d.opened === 'change') return 'change something on a matter you are screened from';
  if (d.opened === 'conversation') return 'open a conversation in a matter you are screened from';
  return 'open a matter you are screened from';
}

const WALL = {
  screen: { named: 'which they are screened from', hidden: ' (they are screened from it)' },
  restriction: { named: 'which is restricted to its members (they are not one)', hidden: ' (it is restricted and they are not a member)' },
  unknown: { named: 'which they are walled from', hidden: '' },
} as const;

/**
 * "Sam Staff tried to open the conversation with Amelia Hart, which they are screened from". The
 * server names a matter only to a reader who may see it; for any other the subject comes unnamed.
 */
export function describeAccessDenied(d: TDenied, s: TSentence): string {
  const wall = WALL[d.wall ?? 'unknown'];
  const matterKind = s.kind === 'client' || s.kind === 'case' || s.kind === 'communication';
  if (matterKind && s.item.subjectLabel === null && !s.item.subjectErased) return `${s.actor} tried to ${hiddenAttempt(d)}${wall.hidden}`;
  return `${s.actor} tried to ${attempt(d, s)}, ${wall.named}`;
}
