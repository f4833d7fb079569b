import type { TDescribers } from './audit-sentence';

/** The firm's wording, edited by directors in Settings › Firm wording: named by its title, never its body. */
export const WORDING_SENTENCES: TDescribers<'wording.add' | 'wording.update' | 'wording.remove'> = {
  'wording.add': (d, s) => `${s.actor} added firm wording${d.title ? ` “${d.title}”` : ''}`,
  'wording.update': (d, s) => {
    const what = d.changed?.length === 1 ? (d.changed[0] === 'title' ? ': its title' : ': its text') : '';
    const renamed = d.from && d.title ? ` (was “${d.from}”)` : '';
    return `${s.actor} changed firm wording${d.title ? ` “${d.title}”` : ''}${renamed}${what}`;
  },
  'wording.remove': (d, s) => `${s.actor} removed firm wording${d.title ? ` “${d.title}”` : ''}`,
};
