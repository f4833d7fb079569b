import type { TDescribers } from './audit-sentence';

const plural = (n: number, one: string) => `${n.toLocaleString('en-GB')} ${one}${n === 1 ? '' : 's'}`;

/** A client's old chat brought in from a phone's export: what became records, and the export's fingerprint. */
export const IMPORT_SENTENCES: TDescribers<'import.commit'> = {
  'import.commit': (d, s) => {
    const files = d.attachments ? ` and ${plural(d.attachments, 'file')}` : '';
    const already = d.duplicates ? ` (${plural(d.duplicates, 'message')} already on file)` : '';
    const fingerprint = d.fileSha256 ? ` · SHA-256 ${d.fileSha256.slice(0, 16)}…` : '';
    return `${s.actor} imported ${plural(d.imported ?? 0, 'message')}${files} from the phone's export “${d.fileName ?? 'unnamed'}” for ${s.subject}${already}${fingerprint}`;
  },
};
