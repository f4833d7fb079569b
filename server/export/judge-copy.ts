import type { TFileCheck, TFoundExport, TManifestCheck, TVerdict } from './verify-export';

// The verdict on a copy and the one sentence that says it (README "Evidence exports"), for the
// Audit page and `npm run export:verify` alike.

const WHAT: Record<TFoundExport['format'], string> = { pdf: 'the PDF export', json: 'the JSON export', zip: 'the court bundle' };
const PART: Record<NonNullable<TFoundExport['part']>, string> = {
  'transcript.pdf': 'the transcript (transcript.pdf) from the court bundle',
  'messages.json': 'the messages (messages.json) from the court bundle',
  'manifest.json': 'the manifest (manifest.json) of the court bundle',
};
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "26 Nov 2026 at 14:03 UTC". */
export function formatWhen(iso: string): string {
  const at = new Date(iso);
  const time = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()} at ${time} UTC`;
}

/** "the court bundle of Amelia Hart that Sam Director exported on 26 Nov 2026 at 14:03 UTC (audit event #812)". */
export function describeExport(found: TFoundExport): string {
  const what = found.part ? PART[found.part] : WHAT[found.format];
  const subject = found.subject.type === 'case' ? `case ${found.subject.name}` : found.subject.name;
  return `${what} of ${subject} that ${found.by.name} exported on ${formatWhen(found.at)} (audit event #${found.auditEventId})`;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
const some = (names: string[]) => (names.length > 3 ? `${names.slice(0, 3).join(', ')}, …` : names.join(', '));

/** "1 file differs from the manifest (exhibits/003-x.pdf); 1 listed file is missing (…); 1 file was added (…)". */
export function describeManifestProblems(manifest: TManifestCheck): string {
  const differ = manifest.files.filter((file) => file.found && !file.matches).map((file) => file.path);
  const absent = manifest.files.filter((file) => !file.found).map((file) => file.path);
  const problems = [
    differ.length ? `${plural(differ.length, 'file differs', 'files differ')} from the manifest (${some(differ)})` : null,
    absent.length ? `${plural(absent.length, 'listed file is', 'listed files are')} missing (${some(absent)})` : null,
    manifest.extra.length ? `${plural(manifest.extra.length, 'file was', 'files were')} added (${some(manifest.extra)})` : null,
  ];
  return problems.filter(Boolean).join('; ');
}

/**
 * `altered` when a ZIP's manifest check fails; `genuine` when the file (or, for a ZIP, its
 * manifest) is an export in the audit trail and, for a ZIP, every file matches; `unknown` otherwise.
 * `lookedUp` is false when the trail was not asked (`npm run export:verify -- --offline`);
 * `byManifest` when a ZIP was found by its manifest's hash rather than its own.
 */
export function judgeCopy(
  check: TFileCheck,
  found: TFoundExport | null,
  how: { lookedUp: boolean; byManifest?: boolean } = { lookedUp: true },
): { verdict: TVerdict; summary: string } {
  const known = found ? describeExport(found) : null;
  if (check.manifest && !check.manifest.allMatch) {
    const problems = describeManifestProblems(check.manifest);
    return {
      verdict: 'altered',
      summary: known
        ? `This copy of ${known} has been altered: ${problems}.`
        : `This ZIP has been altered since its manifest was written: ${problems}.`,
    };
  }
  if (check.kind === 'zip' && check.problem) {
    return {
      verdict: 'unknown',
      summary: `This ZIP could not be checked: ${check.problem}. It is damaged, or it is not a court bundle Firm Chat made.`,
    };
  }
  if (!how.lookedUp) {
    return {
      verdict: 'unknown',
      summary: check.manifest
        ? `Every file matches the bundle's manifest; it was not looked up in the audit trail.`
        : `This looks like ${check.kind === 'unknown' ? 'no export of Firm Chat' : `a ${check.kind.toUpperCase()} export`}; it was not looked up in the audit trail.`,
    };
  }
  if (!found || !known) return { verdict: 'unknown', summary: 'Firm Chat has no record of exporting this file.' };
  if (check.kind !== 'zip') return { verdict: 'genuine', summary: `This is ${known}.` };
  return {
    verdict: 'genuine',
    summary: how.byManifest
      ? `This is ${known}, packed into a new ZIP since; every file matches the manifest it was exported with.`
      : `This is ${known}; every file matches its manifest.`,
  };
}
