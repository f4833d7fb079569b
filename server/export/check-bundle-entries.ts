import { describeCodePoint, showInvisibleCharacters } from '../../shared/visible-text';
import { unreadable } from './bundle-check-problems';
import { MANIFEST_SIGNATURE_ENTRY } from './export-signature';
import { accountForExhibits, checkFile, listedExhibits } from './check-listed-files';
import { nextTurn, YIELD_EVERY } from './event-loop-turns';
import type { TSpooled } from './hashing-spool';
import { RECORDED_PARTS, type TManifest } from './read-bundle-manifest';
import { exhibitNumberOf, RecordedExhibitsReader, type TRecordedExhibits } from './recorded-exhibits';
import type { TBundleParts, TManifestCheck, TManifestFile, TMissingExhibit } from './verify-result-types';
import { hashEntry, isDirectory, openZip, otherLocalName } from './zip-entries';

// The second pass over a court bundle (server/export/README.md "Evidence exports"): every entry streamed out of the
// ZIP once, hashed, and the manifest's rows judged against what came out.

/** Entries not in the manifest listed by name at most; the rest are counted. */
const MAX_EXTRA_LISTED = 1_000;

/** A name from the ZIP as it may be shown: hidden and control characters written as their code. */
const shownName = (name: string) => showInvisibleCharacters(name).replace(/[\t\n\r]/g, describeCodePoint);

/** What the ZIP carries besides the files its manifest lists: counted, and the first MAX_EXTRA_LISTED named. */
class Extras {
  readonly names: string[] = [];
  count = 0;
  add(what: string): void {
    this.count += 1;
    if (this.names.length < MAX_EXTRA_LISTED) this.names.push(what);
  }
}

/**
 * Second pass: every entry hashed as it streams out of the ZIP (what the manifest does not list is
 * extra: an entry, a folder, a comment, a second name in an entry's own header), messages.json read
 * for what it records of each exhibit; then each listed file judged against the manifest and, for
 * an exhibit, against messages.json (checkFile), and every exhibit messages.json records accounted
 * for (accountForExhibits).
 */
export async function checkEntries(path: string, manifest: TManifest): Promise<{ manifest: TManifestCheck; parts: TBundleParts }> {
  const files: TManifestFile[] = [];
  const listed = new Map<string, TManifestFile[]>();
  for (const [i, file] of manifest.files.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await nextTurn();
    const row: TManifestFile = { ...file, found: false, matches: false, actualSha256: null, problem: null };
    files.push(row);
    const same = listed.get(row.path);
    if (same) same.push(row);
    else listed.set(row.path, [row]);
  }
  const received = new Map<string, TSpooled | null>();
  /** Exhibit numbers of the entries in the ZIP, listed or not. */
  const inZip = new Set<number>();
  const extras = new Extras();
  let manifestSeen = false;
  let signatureSeen = false;
  const parts: TBundleParts = { transcriptSha256: null, jsonSha256: null };
  /** undefined: the ZIP has no messages.json; null: it has one that cannot be read as Firm Chat's. */
  let recorded: TRecordedExhibits | null | undefined;
  const zip = await openZip(path, true);
  try {
    if (zip.comment) extras.add('(a comment on the ZIP)');
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      const local = await otherLocalName(zip, entry);
      if (local !== null) extras.add(`${shownName(local)} (so named in its own header; the ZIP's directory says ${shownName(name)})`);
      if (entry.fileComment) extras.add(`${shownName(name)} (a comment on this entry)`);
      // No bundle has a folder entry, and an unzip program makes one from it.
      if (isDirectory(entry)) {
        extras.add(`${shownName(name)} (a folder)`);
        continue;
      }
      if (name === 'manifest.json' && !manifestSeen) {
        manifestSeen = true;
        continue;
      }
      // The manifest's signature (export-signature.ts): checked with the manifest, never listed in it.
      if (name === MANIFEST_SIGNATURE_ENTRY && !signatureSeen) {
        signatureSeen = true;
        continue;
      }
      // A second entry of one name is extra: an unzip program would keep only one of the two.
      const first = !received.has(name);
      const matching = first ? listed.get(name) : undefined;
      const part = first && RECORDED_PARTS.has(name) ? name : null;
      const exhibit = exhibitNumberOf(name);
      if (exhibit !== null) inZip.add(exhibit);
      if (!matching) {
        extras.add(shownName(name));
        if (!part) continue;
      }
      const reader = part === 'messages.json' ? new RecordedExhibitsReader() : undefined;
      const actual = await hashEntry(zip, entry, reader).catch(() => null);
      received.set(name, actual);
      if (part === 'transcript.pdf') parts.transcriptSha256 = actual?.sha256 ?? null;
      if (part === 'messages.json') {
        parts.jsonSha256 = actual?.sha256 ?? null;
        recorded = actual && reader ? reader.finish() : null;
      }
    }
  } catch (error) {
    throw unreadable(error);
  } finally {
    zip.close();
  }
  const missing: TMissingExhibit[] = manifest.missing.map((entry) => ({ ...entry, problem: null }));
  const declared = new Set(missing.map((entry) => entry.exhibit));
  for (const [i, file] of files.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await nextTurn();
    checkFile(file, received, recorded, declared);
  }
  if (recorded) await accountForExhibits(recorded, { files, missing, inZip, listed: listedExhibits(files) });
  return {
    manifest: {
      subject: manifest.subject,
      exportedAt: manifest.exportedAt,
      exportedBy: manifest.exportedBy,
      auditHead: manifest.auditHead,
      files,
      missing,
      extra: extras.names,
      allMatch: extras.count === 0 && files.every((file) => file.found && file.matches),
    },
    parts,
  };
}
