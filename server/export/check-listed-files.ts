import { MISSING_BUT_HELD, MISSING_UNRECORDED, NOT_IN_ZIP, UNACCOUNTED } from './bundle-check-problems';
import { nextTurn, YIELD_EVERY } from './event-loop-turns';
import type { TSpooled } from './hashing-spool';
import { exhibitNumberOf, recordedPath, type TRecordedExhibits } from './recorded-exhibits';
import type { TManifestFile, TMissingExhibit } from './verify-result-types';

// A bundle's manifest rows judged once every entry has streamed out of the ZIP (check-bundle-entries.ts):
// each listed file against the bytes received and what messages.json recorded, and every exhibit
// messages.json records accounted for.

/** The exhibit numbers of the manifest's rows. */
export function listedExhibits(files: TManifestFile[]): Set<number> {
  const numbers = new Set<number>();
  for (const file of files) {
    const exhibit = exhibitNumberOf(file.path);
    if (exhibit !== null) numbers.add(exhibit);
  }
  return numbers;
}

/**
 * Every exhibit messages.json records is in the ZIP or among the manifest's missing files: one that
 * is neither (taken out of the ZIP and the manifest alike) gets a row saying so, which makes the
 * copy altered. A missing entry messages.json contradicts (it records the exhibit as held, or not
 * at all) gets a `problem`, whether the ZIP holds other bytes under its number or none: a genuine
 * bundle has one only when the file could not be copied whole, or no longer matched its record, as
 * the bundle was made, which the audit trail vouches for (judge-copy.ts); a forger who took an
 * exhibit out, or replaced it, and declared it missing has one too.
 */
export async function accountForExhibits(
  recorded: TRecordedExhibits,
  bundle: { files: TManifestFile[]; missing: TMissingExhibit[]; inZip: Set<number>; listed: Set<number> },
): Promise<void> {
  const declared = new Set<number>();
  for (const [i, entry] of bundle.missing.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await nextTurn();
    declared.add(entry.exhibit);
    const said = recorded.get(entry.exhibit);
    if (!said) entry.problem = MISSING_UNRECORDED;
    else if (said.held) entry.problem = MISSING_BUT_HELD;
  }
  let i = 0;
  for (const [exhibit, said] of recorded) {
    if (i++ % YIELD_EVERY === YIELD_EVERY - 1) await nextTurn();
    if (bundle.listed.has(exhibit) || bundle.inZip.has(exhibit) || declared.has(exhibit)) continue;
    bundle.files.push({
      path: recordedPath(exhibit, said),
      sha256: said.sha256 ?? '',
      bytes: said.bytes ?? 0,
      found: false,
      matches: false,
      actualSha256: null,
      problem: `${UNACCOUNTED} (exhibit ${exhibit}), but it is neither in the ZIP nor among the manifest’s missing files`,
    });
  }
}

/**
 * One listed file against the bytes received and what messages.json recorded. An exhibit that
 * differs from messages.json is an alteration, unless the bundle's own manifest lists it among the
 * missing (the firm's copy no longer matched its record when the bundle was made, and said so).
 */
export function checkFile(
  file: TManifestFile,
  received: Map<string, TSpooled | null>,
  recorded: TRecordedExhibits | null | undefined,
  declared: Set<number>,
): void {
  if (!received.has(file.path)) {
    Object.assign(file, { found: false, matches: false, problem: NOT_IN_ZIP });
    return;
  }
  const actual = received.get(file.path) ?? null;
  if (!actual) {
    Object.assign(file, { found: true, matches: false, problem: 'could not be read: that part of the ZIP is damaged' });
    return;
  }
  const problems: string[] = [];
  let altered = false;
  if (actual.sha256 !== file.sha256.toLowerCase() || actual.bytes !== file.bytes) {
    problems.push('differs from the manifest');
    altered = true;
  }
  const exhibit = exhibitNumberOf(file.path);
  if (file.path === 'messages.json' && recorded === null) {
    problems.push('cannot be read as the messages.json Firm Chat writes');
    altered = true;
  } else if (exhibit !== null && recorded) {
    const said = recorded.get(exhibit);
    if (said === undefined) {
      problems.push(`messages.json records no exhibit ${exhibit}`);
      altered = true;
    } else if (said.sha256 !== null && said.sha256 !== actual.sha256) {
      const known = declared.has(exhibit);
      problems.push(
        `differs from what messages.json recorded for exhibit ${exhibit}${known ? ', as the manifest’s list of missing files says' : ''}`,
      );
      altered ||= !known;
    }
  }
  Object.assign(file, {
    found: true,
    matches: !altered,
    actualSha256: actual.sha256,
    problem: problems.length ? problems.join('; ') : null,
  });
}
