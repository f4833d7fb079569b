import { listed, phone } from '../audit-detail-words';
import type { TDescribers } from './audit-sentence';

const CHANGED_WORD = {
  label: 'its label',
  apiKey: 'its provider key',
  webhookSecret: 'its webhook secret',
  phoneNumberId: 'its provider id',
};

/** The firm's business numbers, managed by directors in Settings › Business numbers: named by number and label, never by key. */
export const FIRM_NUMBER_SENTENCES: TDescribers<'number.add' | 'number.update' | 'number.deactivate'> = {
  'number.add': (d, s) => `${s.actor} added the business number ${phone(d.phone)}${d.label ? ` “${d.label}”` : ''}`,
  'number.update': (d, s) => {
    const what = d.changed?.length ? `: ${listed(d.changed.map((c) => CHANGED_WORD[c]))}` : '';
    const renamed = d.from ? ` (was “${d.from}”)` : '';
    return `${s.actor} changed the business number ${phone(d.phone)}${d.label ? ` “${d.label}”` : ''}${renamed}${what}`;
  },
  'number.deactivate': (d, s) => `${s.actor} deactivated the business number ${phone(d.phone)}${d.label ? ` “${d.label}”` : ''}`,
};
