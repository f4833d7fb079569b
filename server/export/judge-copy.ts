import type { TStoredFile } from './find-stored-file';
import { DAMAGED_ZIP, MISSING_BUT_HELD, UNACCOUNTED } from './bundle-check-problems';
import { signatureProblem, type TSignatureCheck } from './export-signature';
import type { TBundlePart, TFileCheck, TFoundExport, TManifestCheck, TVerdict } from './verify-result-types';

// The verdict on a copy and the one sentence that says it (server/export/README.md "Evidence exports"), for the
// Audit page and `npm run export:verify` alike.

const WHAT: Record<TFoundExport['format'], string> = { pdf: 'the PDF export', json: 'the JSON export', zip: 'the court bundle' };
const PART: Record<NonNullable<TFoundExport['part']>, string> = {
  'transcript.pdf': 'the transcript (transcript.pdf) from the court bundle',
  'messages.json': 'the messages (messages.json) from the court bundle',
  'manifest.json': 'the manifest (manifest.json) of the court bundle',
};
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "26 Nov 2026". */
const formatDay = (at: Date) => `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}`;

/** "26 Nov 2026 at 14:03 UTC". */
export function formatWhen(iso: string): string {
  const at = new Date(iso);
  const time = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
  return `${formatDay(at)} at ${time} UTC`;
}

/** "the court bundle of Amelia Hart that Sam Director exported on 26 Nov 2026 at 14:03 UTC (audit event #812)". */
export function describeExport(found: TFoundExport): string {
  const what = found.part ? PART[found.part] : WHAT[found.format];
  const subject = found.subject.type === 'case' ? `case ${found.subject.name}` : found.subject.name;
  return `${what} of ${subject} that ${found.by.name} exported on ${formatWhen(found.at)} (audit event #${found.auditEventId})`;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
const some = (names: string[]) => (names.length > 3 ? `${names.slice(0, 3).join(', ')}, …` : names.join(', '));
/**
 * An extra that is no file: a folder, a comment, a second name (verify-export.ts marks each so).
 * Plain string tests: the names are anyone's, up to 64 KB each.
 */
const isMarked = (extra: string) =>
  extra === '(a comment on the ZIP)' ||
  extra.endsWith(' (a folder)') ||
  extra.endsWith(' (a comment on this entry)') ||
  extra.includes(' (so named in its own header; ');

/**
 * "1 file differs from the manifest (exhibits/003-x.pdf); 1 file differs from what messages.json
 * recorded (exhibits/002-y.jpg); 1 listed file is missing (…); 1 file was added (…)"; empty when
 * nothing is wrong. `vouched`: the audit trail recorded this very manifest (the ZIP's or its
 * manifest's hash), so what its list of missing files says is the firm's own word, not a problem.
 */
export function describeManifestProblems(manifest: TManifestCheck, vouched = false): string {
  const bad = manifest.files.filter((file) => file.found && !file.matches);
  // Bytes that are the manifest's yet do not match: messages.json (or the JSON itself) disagrees.
  const isManifests = (file: TManifestCheck['files'][number]) => file.actualSha256 === file.sha256.toLowerCase();
  const differ = bad.filter((file) => !isManifests(file)).map((file) => file.path);
  const unrecorded = bad.filter((file) => isManifests(file) && file.path !== 'messages.json').map((file) => file.path);
  const unreadableJson = bad.some((file) => isManifests(file) && file.path === 'messages.json');
  const absent = manifest.files.filter((file) => !file.found && !file.problem?.startsWith(UNACCOUNTED)).map((file) => file.path);
  const unaccounted = manifest.files.filter((file) => !file.found && file.problem?.startsWith(UNACCOUNTED)).map((file) => file.path);
  const added = manifest.extra.filter((extra) => !isMarked(extra));
  const carried = manifest.extra.filter(isMarked);
  const contradicted = vouched ? [] : manifest.missing.filter((missing) => missing.problem);
  const held = contradicted.filter((missing) => missing.problem === MISSING_BUT_HELD).map((missing) => `exhibit ${missing.exhibit}`);
  const unknown = contradicted.filter((missing) => missing.problem !== MISSING_BUT_HELD).map((missing) => `exhibit ${missing.exhibit}`);
  const problems = [
    differ.length ? `${plural(differ.length, 'file differs', 'files differ')} from the manifest (${some(differ)})` : null,
    unrecorded.length
      ? `${plural(unrecorded.length, 'file does', 'files do')} not match what messages.json recorded (${some(unrecorded)})`
      : null,
    unreadableJson ? 'messages.json cannot be read as the one Firm Chat writes' : null,
    absent.length ? `${plural(absent.length, 'listed file is', 'listed files are')} missing (${some(absent)})` : null,
    unaccounted.length
      ? `${plural(unaccounted.length, 'exhibit', 'exhibits')} that messages.json records ${unaccounted.length === 1 ? 'is' : 'are'} neither in the ZIP nor among its manifest’s missing files (${some(unaccounted)})`
      : null,
    held.length
      ? `${plural(held.length, 'exhibit is', 'exhibits are')} listed as missing although messages.json records ${held.length === 1 ? 'it' : 'them'} as held (${some(held)})`
      : null,
    unknown.length
      ? `${plural(unknown.length, 'exhibit is', 'exhibits are')} listed as missing although messages.json records no such exhibit (${some(unknown)})`
      : null,
    added.length ? `${plural(added.length, 'file was', 'files were')} added (${some(added)})` : null,
    carried.length ? `the ZIP carries what no bundle has: ${some(carried)}` : null,
  ];
  return problems.filter(Boolean).join('; ');
}

/** " 2 exhibits are not in the bundle as received: its manifest says why for each." when the firm did not hold every file whole; else nothing. */
function describeMissing(manifest: TManifestCheck | null): string {
  const count = manifest?.missing.length ?? 0;
  if (!count) return '';
  // Not held (not yet downloaded, failed, destroyed) or not whole: one wording for every reason the manifest gives.
  return ` ${count === 1 ? '1 exhibit is' : `${count} exhibits are`} not in the bundle as received: its manifest says why for each.`;
}

/** "IMG_2041.jpg", or "a photo with no file name (image/jpeg)". */
const storedName = (file: TStoredFile) =>
  file.fileName ?? `${file.mimeType.startsWith('image/') ? 'a photo' : 'a file'} with no file name (${file.mimeType})`;

/** "which Amelia Hart sent on 26 Nov 2026". */
function storedHow(file: TStoredFile): string {
  const day = formatDay(new Date(file.at));
  return file.direction === 'inbound'
    ? `which ${file.subject.name} sent on ${day}`
    : file.direction === 'outbound'
      ? `which the firm sent to ${file.subject.name} on ${day}`
      : `which is on ${file.subject.name}'s record from ${day}`;
}

const storedOthers = (file: TStoredFile) =>
  file.others ? `; ${file.others === 1 ? '1 other stored file has' : `${file.others} other stored files have`} the same bytes` : '';

/** What a stored file's answer adds: holding a file proves nothing about where it came from. */
export const NOT_SIGNED = 'It is a file the firm holds, not an export: no signature of the firm vouches for it.';

/** "This file is identical to IMG_2041.jpg, which Amelia Hart sent on 26 Nov 2026 (stored with this SHA-256)." */
export function describeStoredFile(file: TStoredFile): string {
  return `This file is identical to ${storedName(file)}, ${storedHow(file)} (stored with this SHA-256${storedOthers(file)}).`;
}

/**
 * A file that says it is an export, yet is only one the firm holds among a conversation's files:
 * "This is not an export the firm made: no export in the audit trail has it. It is only a file that
 * came in from Amelia Hart on 26 Nov 2026 (bundle.zip, stored with this SHA-256)."
 */
export function describeClaimedStoredFile(file: TStoredFile): string {
  const day = formatDay(new Date(file.at));
  const how =
    file.direction === 'inbound'
      ? `a file that came in from ${file.subject.name} on ${day}`
      : file.direction === 'outbound'
        ? `a file the firm sent to ${file.subject.name} on ${day}`
        : `a file on ${file.subject.name}'s record from ${day}`;
  return (
    `This is not an export the firm made: no export in the audit trail has it. ` +
    `It is only ${how} (${storedName(file)}, stored with this SHA-256${storedOthers(file)}).`
  );
}

const PART_NAME: Record<TBundlePart, string> = {
  'transcript.pdf': 'transcript',
  'messages.json': 'messages.json',
  'manifest.json': 'manifest',
};

/** How the trail knew the file, and what else it holds. */
export type TJudgeHow = {
  /** False when the trail was not asked (`npm run export:verify -- --offline`). */
  lookedUp: boolean;
  /** A ZIP found by its manifest's hash rather than its own. */
  byManifest?: boolean;
  /** A ZIP found only by its transcript's or messages.json's hash: its manifest is not the recorded one. */
  byPart?: TBundlePart | null;
  /** No export matched; a file the firm holds has these bytes. */
  storedFile?: TStoredFile | null;
  /**
   * The copy's signature (signatureOfCopy): a bundle's manifest.sig, or the signature its export event
   * recorded over a PDF's or JSON's digest. An export is genuine only when it is `valid`.
   */
  signature?: TSignatureCheck | null;
};

/** The verdict when the signature does not prove the firm made the copy: forged or re-signed is altered, unsigned unknown. */
const unsignedVerdict = (signature: TSignatureCheck): TVerdict =>
  signature.state === 'invalid' || signature.state === 'other-key' ? 'altered' : 'unknown';

/**
 * `altered` when a ZIP's manifest check fails, or when the ZIP is known only by its transcript or
 * messages.json (its manifest is not the one recorded), or its signature fails or is another key's;
 * `genuine` when the file (or, for a ZIP, its manifest) is an export in the audit trail, its
 * signature verifies under the firm's key (offline: a bundle signed by it) and, for a ZIP, every
 * file matches, or when it is a
 * file the firm holds that does not claim to be an export; `unknown` otherwise. A file that claims
 * to be an export (a bundle's parts, an export's header, Firm Chat as a PDF's creator) and is none
 * in the trail is never genuine, even when a client sent the firm those very bytes.
 */
export function judgeCopy(
  check: TFileCheck,
  found: TFoundExport | null,
  how: TJudgeHow = { lookedUp: true },
): { verdict: TVerdict; summary: string } {
  const known = found ? describeExport(found) : null;
  const signature = how.signature ?? { state: 'unchecked', fingerprint: null };
  // The trail recorded this manifest (the ZIP's hash, or its manifest's), or the firm's key signed it: its list of missing files is the firm's own word.
  const vouched = (found !== null && !how.byPart) || (check.kind === 'zip' && signature.state === 'valid');
  const problems = check.manifest ? describeManifestProblems(check.manifest, vouched) || null : null;
  const stored = !found && how.storedFile ? how.storedFile : null;
  const cameIn = stored ? ` ${describeClaimedStoredFile(stored).replace(/^This is not/, 'It is not')}` : '';
  if (found && how.byPart) {
    return {
      verdict: 'altered',
      summary:
        `This bundle's manifest is not the one recorded with export event #${found.auditEventId}: its ${PART_NAME[how.byPart]} is that of ${known}, ` +
        `but its manifest was changed since${problems ? `, and ${problems}` : ''}.`,
    };
  }
  if (problems) {
    return {
      verdict: 'altered',
      summary: known
        ? `This copy of ${known} has been altered: ${problems}.`
        : `This ZIP has been altered since its manifest was written: ${problems}.${cameIn}`,
    };
  }
  // A stored file is one the firm holds, not one it signed: the request role can add a row for any
  // bytes, so it is never "genuine" (server/export/README.md "Verify a copy").
  if (stored) {
    return check.claimsExport
      ? { verdict: 'unknown', summary: describeClaimedStoredFile(stored) }
      : { verdict: 'unknown', summary: `${describeStoredFile(stored)} ${NOT_SIGNED}` };
  }
  if (check.kind === 'zip' && check.problem) {
    return {
      verdict: 'unknown',
      summary:
        check.problem === DAMAGED_ZIP
          ? `This file could not be read as a ZIP: ${DAMAGED_ZIP}.`
          : `This ZIP could not be checked: ${check.problem}. It is not a court bundle as Firm Chat made it.`,
    };
  }
  if (!how.lookedUp) {
    if (check.manifest) {
      const unsigned = signatureProblem(signature, 'its manifest');
      if (!unsigned)
        return {
          verdict: 'genuine',
          summary: `This court bundle is signed by the firm's key (${signature.fingerprint?.slice(0, 16)}…) and every file matches its manifest; it was not looked up in the audit trail.${describeMissing(check.manifest)}`,
        };
      if (signature.state !== 'unchecked')
        return { verdict: unsignedVerdict(signature), summary: `Every file matches the bundle's manifest, but ${unsigned}.` };
    }
    return {
      verdict: 'unknown',
      summary: check.manifest
        ? `Every file matches the bundle's manifest; it was not looked up in the audit trail.`
        : `This looks like ${check.kind === 'unknown' ? (check.plainJson ? 'a JSON file that is not a Firm Chat export' : 'no export of Firm Chat') : `a ${check.kind.toUpperCase()} export`}; it was not looked up in the audit trail.`,
    };
  }
  if (!found || !known) {
    const lacking = check.manifest ? lackingParts(check) : '';
    return {
      verdict: 'unknown',
      summary: check.plainJson
        ? 'This is a JSON file that is not a Firm Chat export, and no file Firm Chat holds has its SHA-256.'
        : `Firm Chat has no record of this file: it is no export in the audit trail and no file the firm holds.${lacking}`,
    };
  }
  const unsigned = signatureProblem(signature, check.kind === 'zip' ? 'its manifest' : 'its export event');
  if (unsigned) return { verdict: unsignedVerdict(signature), summary: `This file matches ${known} in the audit trail, but ${unsigned}.` };
  if (check.kind !== 'zip') return { verdict: 'genuine', summary: `This is ${known}.` };
  return {
    verdict: 'genuine',
    summary:
      (how.byManifest
        ? `This is ${known}, packed into a new ZIP since; every file matches the manifest it was exported with.`
        : `This is ${known}; every file matches its manifest.`) + describeMissing(check.manifest),
  };
}

/** " It lacks transcript.pdf, which every bundle holds." for a ZIP with a manifest but no readable transcript or messages.json. */
function lackingParts(check: TFileCheck): string {
  const lacking = [check.parts.transcriptSha256 ? null : 'transcript.pdf', check.parts.jsonSha256 ? null : 'messages.json'].filter(
    (part): part is string => part !== null,
  );
  return lacking.length ? ` It lacks ${lacking.join(' and ')}, which every bundle holds.` : '';
}
