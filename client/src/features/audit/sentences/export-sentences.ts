import type { TAuditDetail } from '../../../../../shared/audit/audit-details';
import { formatBytes } from '../../../../../shared/media-limits';
import { numberWords, plural, shortHash } from '../audit-detail-words';
import type { TDescribers } from './audit-sentence';

type TExport = Partial<TAuditDetail<'export.create'>>;

const sizeAndHash = (d: TExport) => [
  d.messages !== undefined ? plural(d.messages, 'message') : null,
  d.bytes !== undefined ? formatBytes(d.bytes) : null,
  d.sha256 ? `SHA-256 ${shortHash(d.sha256)}` : null,
];

/** A court bundle's numbers: ": 12 exhibits (1 missing), 34 messages, 1.2 MB, SHA-256 ab12…". */
function bundleFacts(d: TExport, raw: Record<string, unknown>): string {
  // A row may list the exhibits left out instead of counting them: either reads as a count.
  const missing = Array.isArray(raw.missingExhibits) ? raw.missingExhibits.length : d.missingExhibits;
  const facts = [
    d.exhibits !== undefined ? `${plural(d.exhibits, 'exhibit')}${missing ? ` (${numberWords.format(missing)} missing)` : ''}` : null,
    ...sizeAndHash(d),
  ].filter((f): f is string => f !== null);
  return facts.length ? `: ${facts.join(', ')}` : '';
}

/** Exports and the checks of their copies (server/export/README.md "Evidence exports"). */
export const EXPORT_SENTENCES: TDescribers<'export.create' | 'export.verify'> = {
  'export.create': (d, s) => {
    if (d.format === 'zip') return `${s.actor} exported the court bundle of ${s.subject}${bundleFacts(d, s.item.detail)}`;
    const facts = sizeAndHash(d).filter((f): f is string => f !== null);
    return `${s.actor} exported ${s.chatOf}${d.format ? ` as ${d.format.toUpperCase()}` : ''}${facts.length ? ` (${facts.join(', ')})` : ''}`;
  },
  'export.verify': (d, s) => {
    // Not an export but a file the firm holds (an exhibit taken out of a bundle, say): unknown, as nothing signed it.
    const held = typeof d.attachmentId === 'number' && typeof d.auditEventId !== 'number';
    if (d.verdict === 'unknown' && !held) return `${s.actor} verified a copy: unknown (no export in the trail has it)`;
    return `${s.actor} verified a copy${d.verdict ? `: ${d.verdict}` : ''}${held ? ' — identical to a file the firm holds' : ''}`;
  },
};
