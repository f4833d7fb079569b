import type { TAuditDetail } from '../../../../../shared/audit/audit-details';
import { formatBytes } from '../../../../../shared/media-limits';
import { dateOf, listed, plural } from '../audit-detail-words';
import type { TDescribers } from './audit-sentence';

const RETENTION_GROUNDS: Record<NonNullable<TAuditDetail<'erasure.decide'>['grounds']>, string> = {
  legal_claims: 'the records are needed for legal claims',
  legal_obligation: 'the firm must keep them by law',
  hold: 'they are under a legal hold',
};

const DESTROYED = [
  ['clients', 'client'],
  ['cases', 'case'],
  ['records', 'record'],
  ['files', 'file'],
] as const;

/** Holds, retention, erasure (server/records/README.md "Records") and checks of the trail itself. */
export const RECORDS_SENTENCES: TDescribers<
  'hold.place' | 'hold.release' | 'retention.destroy' | 'erasure.request' | 'erasure.decide' | 'audit.verify'
> = {
  'hold.place': (d, s) => `${s.actor} placed a legal hold on ${s.subject}${d.reason ? `: “${d.reason}”` : ''}`,
  'hold.release': (_d, s) => `${s.actor} released the legal hold on ${s.subject}`,
  'retention.destroy': (d, s) => {
    const parts = DESTROYED.map(([key, one]) => (d[key] ? plural(d[key], one) : null)).filter((p): p is string => p !== null);
    const what = parts.length ? `${listed(parts)}${d.bytes ? ` (${formatBytes(d.bytes)})` : ''}` : 'nothing';
    const kept = d.leftOut ? `; ${plural(d.leftOut, 'item')} left out` : '';
    if (d.kind === 'erasure') return `${s.actor} erased ${what}${s.kind === 'client' ? ` of ${s.subject}` : ''} on request${kept}`;
    return `${s.actor} destroyed ${what} past their retention period${kept}`;
  },
  'erasure.request': (d, s) => {
    const received = dateOf(d.receivedAt);
    const note = d.note ? `: “${d.note}”` : d.noted ? ', with a note' : '';
    return `${s.actor} recorded a request from ${s.subject} to erase their records${received ? `, received ${received}` : ''}${note}`;
  },
  'erasure.decide': (d, s) => {
    const request = d.requestId !== undefined ? ` (request #${d.requestId})` : '';
    if (d.decision === 'erase') return `${s.actor} decided to erase the records of ${s.subject}${request}`;
    if (d.decision === 'refuse') {
      const grounds = d.grounds ? RETENTION_GROUNDS[d.grounds] : null;
      return `${s.actor} refused the erasure request of ${s.subject}${request}${grounds ? `: ${grounds}` : ''}`;
    }
    return `${s.actor} decided the erasure request of ${s.subject}${request}`;
  },
  'audit.verify': (d, s) => {
    const events = d.rows !== undefined ? plural(d.rows, 'event') : 'the events';
    if (d.ok === true)
      return `${s.actor} verified the trail: ${events}, unbroken${typeof d.headId === 'number' ? `, head #${d.headId}` : ''}`;
    if (d.ok === false)
      return `${s.actor} verified the trail: it does not verify${d.firstBadId !== undefined ? ` at event #${d.firstBadId}` : ''}`;
    return `${s.actor} verified the trail`;
  },
};
