import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { openPromise, type Entry, type ZipFile } from 'yauzl';
import { z } from 'zod';
import { describeCodePoint, showInvisibleCharacters } from '../../shared/visible-text';
import type { TStoredFile } from './find-stored-file';
import type { TSpooled } from './hashing-spool';
import { exhibitNumberOf, RecordedExhibitsReader, recordedPath, type TRecordedExhibits } from './recorded-exhibits';

// "Verify a copy" (README "Evidence exports"): what a file is, by its content, and for a court
// bundle whether every file still matches its manifest, and every exhibit what its messages.json
// recorded (a manifest edited to match a changed file still disagrees). Pure file checks, shared by
// `POST /api/export/verify` and `npm run export:verify` (which works with no server or database).
// The file is anyone's: every loop over what it holds is linear and lets the event loop turn every
// YIELD_EVERY items, so a health check or another request never waits behind a check.

export type TExportKind = 'zip' | 'pdf' | 'json' | 'unknown';
export type TVerdict = 'genuine' | 'altered' | 'unknown';
export type TBundlePart = 'transcript.pdf' | 'messages.json' | 'manifest.json';

/**
 * One file a manifest lists, checked: `actualSha256` is the hash of the bytes the ZIP holds (null
 * when it holds none, or they cannot be read); `matches` when they are the manifest's and, for an
 * exhibit, what messages.json recorded for it; `problem` says what is wrong in a few words. An
 * exhibit messages.json records that the ZIP neither holds nor its manifest lists as missing is a
 * row too (`found` false, its path as the bundle would name it).
 */
export type TManifestFile = {
  path: string;
  sha256: string;
  bytes: number;
  found: boolean;
  matches: boolean;
  actualSha256: string | null;
  problem: string | null;
};

/** An exhibit the manifest says the bundle does not hold (whole); `problem` when messages.json contradicts it. */
export type TMissingExhibit = { exhibit: number; name: string; reason: string; problem: string | null };

/** Who the manifest says the bundle is about, read only in the shape Firm Chat writes (small values). */
export type TManifestSubject = {
  type: 'client' | 'case';
  id: number;
  name: string;
  reference?: string | null;
  clientName?: string;
  numbers?: string[];
};

/**
 * A bundle's manifest, each listed file checked against the bytes in the ZIP. `subject`,
 * `exportedBy` and `auditHead` are what the manifest claims, in the shapes Firm Chat writes them;
 * null when it claims anything else (only the audit trail can say who exported what).
 */
export type TManifestCheck = {
  subject: TManifestSubject | null;
  exportedAt: string;
  exportedBy: { id: number | null; name: string; email?: string } | null;
  auditHead: { id: number | null; hash: string } | null;
  files: TManifestFile[];
  missing: TMissingExhibit[];
  /**
   * What the ZIP carries that the manifest does not list: entries by name, and marked so, folders
   * ("exhibits/x/ (a folder)"), comments ("(a comment on the ZIP)") and an entry whose own header
   * names it otherwise than the ZIP's directory.
   */
  extra: string[];
  /** Every listed file found and matching, every exhibit messages.json records accounted for, nothing extra. */
  allMatch: boolean;
};

/** The export a file is, from the audit trail (dates as ISO strings). */
export type TFoundExport = {
  auditEventId: number;
  at: string;
  by: { id: number | null; name: string };
  subject: { type: 'client' | 'case'; id: number; name: string };
  format: 'pdf' | 'json' | 'zip';
  /** Set when the file is one part of a bundle rather than the export itself. */
  part: TBundlePart | null;
};

/** The answer of `POST /api/export/verify`. */
export type TVerifyResult = {
  fileName: string | null;
  kind: TExportKind;
  sha256: string;
  bytes: number;
  export: TFoundExport | null;
  manifest: TManifestCheck | null;
  /** When no export matches: a file the firm holds with these exact bytes (one taken out of a bundle, say). */
  storedFile: TStoredFile | null;
  verdict: TVerdict;
  summary: string;
};

/** The SHA-256 of a ZIP's transcript.pdf and messages.json (null: not in it, or unreadable), as a bundle's audit event records them. */
export type TBundleParts = { transcriptSha256: string | null; jsonSha256: string | null };

/** What the file itself says, before the audit trail is asked. */
export type TFileCheck = {
  kind: TExportKind;
  sha256: string;
  bytes: number;
  manifest: TManifestCheck | null;
  /** The SHA-256 of a ZIP's manifest.json: what a bundle's audit event records, whatever the ZIP around it. */
  manifestSha256: string | null;
  /** A checked ZIP's transcript and JSON; both null for any other file. */
  parts: TBundleParts;
  /** JSON that is not an export of Firm Chat (`kind` is then `unknown`). */
  plainJson: boolean;
  /**
   * The file says it is an export of Firm Chat: a ZIP holding a bundle's manifest, transcript or
   * messages, JSON with an export's or a manifest's header, a PDF whose creator is Firm Chat. Only
   * the audit trail can say it is one: the same bytes among the files a client sent make it no export.
   */
  claimsExport: boolean;
  /** Why a ZIP could not be checked (DAMAGED_ZIP, a zip bomb, no manifest); null when it could. */
  problem: string | null;
};

/** A ZIP's `problem` when it cannot be read at all (cut short, overwritten): said plainly, not in the ZIP library's words. */
export const DAMAGED_ZIP = 'it is damaged or incomplete';
/** The problem of a listed file the ZIP does not hold. */
export const NOT_IN_ZIP = 'not in the ZIP';
/** The problem of an exhibit messages.json records that the ZIP neither holds nor lists as missing (the row's start). */
export const UNACCOUNTED = 'messages.json records this exhibit';
/** A missing entry's problem when messages.json records the exhibit as held. */
export const MISSING_BUT_HELD = 'listed as missing although messages.json records it as held';
/** A missing entry's problem when messages.json records no such exhibit. */
export const MISSING_UNRECORDED = 'listed as missing although messages.json records no such exhibit';

/** More entries than any bundle has (10,000 exhibits is a large one): a ZIP past this is not read. */
export const MAX_ZIP_ENTRIES = 250_000;
/** Bytes inflated from compressed entries at most (a bundle's transcript and JSON are far smaller): past this it is a zip bomb. */
export const MAX_INFLATED_BYTES = 8 * 1024 ** 3;
/** A manifest.json larger than this is not read: it lists about 150,000 exhibits (one of 10,000 is under 2 MB), and is parsed whole. */
const MAX_MANIFEST_BYTES = 24 * 1024 * 1024;
/** Entries not in the manifest listed by name at most; the rest are counted. */
const MAX_EXTRA_LISTED = 1_000;
/** What is read of a file to tell what it is. */
const SNIFF_BYTES = 64 * 1024;
/** What is read of a PDF's end for its creator: pdfkit writes its Info dictionary after the pages, before the fonts. */
const PDF_TAIL_BYTES = 1024 * 1024;
/** Items handled between two turns of the event loop. */
export const YIELD_EVERY = 1_000;

/** Lets the event loop turn: timers, sockets and other requests run before the check goes on. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

// What a manifest claims, accepted only in the shapes Firm Chat writes (a name, a number, an id):
// anything else (an object 200,000 levels deep, a megabyte of name) is no claim Firm Chat made.
const MAX_TEXT = 1_000;
const ZText = z.string().max(MAX_TEXT);
const ZSubject = z.object({
  type: z.enum(['client', 'case']),
  id: z.number().int().nonnegative(),
  name: ZText,
  reference: ZText.nullable().optional(),
  clientName: ZText.optional(),
  numbers: z.array(z.string().max(32)).max(100).optional(),
});
const ZExportedBy = z.object({ id: z.number().int().nullable(), name: ZText, email: ZText.optional() });
const ZAuditHead = z.object({ id: z.number().int().nullable(), hash: z.string().max(128) });
const ZManifestHead = z.looseObject({ exportedAt: z.string().max(64) });
/** A bundle's path is at most `exhibits/`, the number and 150 bytes of name; a hash is 64 letters. */
const ZListedFile = z.object({ path: z.string().min(1).max(1_024), sha256: z.string().max(128), bytes: z.number().int().nonnegative() });
/** A missing file's name is the name it was stored with (a phone's, once up to a few hundred characters). */
const ZMissing = z.object({ exhibit: z.number().int(), name: z.string().max(4_096), reason: ZText });

type TManifest = {
  subject: TManifestSubject | null;
  exportedAt: string;
  exportedBy: TManifestCheck['exportedBy'];
  auditHead: TManifestCheck['auditHead'];
  files: z.infer<typeof ZListedFile>[];
  missing: z.infer<typeof ZMissing>[];
};

/** A ZIP that cannot be checked, with the sentence saying why. */
class UncheckableZip extends Error {
  override name = 'UncheckableZip';
}

/**
 * The ZIP library's error, in words for the person checking: a name that would leave its folder
 * is said so (no bundle has one); anything else is a damaged ZIP. The library's own text is never
 * shown ("End of central directory record signature not found" tells a user nothing).
 */
function unreadable(error: unknown): UncheckableZip {
  if (error instanceof UncheckableZip) return error;
  const message = error instanceof Error ? error.message : '';
  if (/relative path|absolute path|invalid characters in fileName/i.test(message))
    return new UncheckableZip('one of its entries is named with a path that leaves its folder, which no bundle has');
  if (/encrypt/i.test(message)) return new UncheckableZip('it is encrypted, which no bundle is');
  return new UncheckableZip(DAMAGED_ZIP);
}

async function hashFile(path: string): Promise<TSpooled> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(createReadStream(path), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  });
  return { sha256: hash.digest('hex'), bytes };
}

/** Up to `length` bytes of the file from `position`. */
async function readAt(path: string, position: number, length: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** The creator pdfkit writes into the transcript's Info dictionary (render-pdf.ts), as the PDF holds it. */
const FIRM_CHAT_CREATOR = Buffer.from('(Firm Chat)', 'latin1');

/**
 * What the file is by its first bytes: a ZIP, a PDF, or a JSON object with `exportedAt` (an export
 * or a manifest); `plainJson` for other JSON (read whole when it is within the bytes read).
 * `claimsExport` for JSON with an export's header, and for a PDF whose creator is Firm Chat (looked
 * for where pdfkit writes it: near the start of a short PDF, before the fonts at the end of a long one).
 */
async function sniffKind(path: string, bytes: number): Promise<{ kind: TExportKind; plainJson: boolean; claimsExport: boolean }> {
  const read = await readAt(path, 0, SNIFF_BYTES + 1);
  const whole = read.length <= SNIFF_BYTES;
  const head = read.subarray(0, Math.min(read.length, SNIFF_BYTES));
  const magic = head.subarray(0, 4).toString('latin1');
  if (magic === 'PK\x03\x04' || magic === 'PK\x05\x06') return { kind: 'zip', plainJson: false, claimsExport: false };
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') {
    const tail = bytes > SNIFF_BYTES ? await readAt(path, Math.max(0, bytes - PDF_TAIL_BYTES), PDF_TAIL_BYTES) : Buffer.alloc(0);
    return { kind: 'pdf', plainJson: false, claimsExport: head.includes(FIRM_CHAT_CREATOR) || tail.includes(FIRM_CHAT_CREATOR) };
  }
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  // Its header comes first (README "Evidence exports"): a large export need not be read whole to tell.
  if (text.startsWith('{') && /"exportedAt"\s*:/.test(text)) return { kind: 'json', plainJson: false, claimsExport: true };
  return { kind: 'unknown', plainJson: whole && isJson(text), claimsExport: false };
}

function isJson(text: string): boolean {
  if (!/^[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The entry's hash and size as it streams out of the ZIP; `reader` is fed the same bytes. */
async function hashEntry(zip: ZipFile, entry: Entry, reader?: RecordedExhibitsReader): Promise<TSpooled> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(await zip.openReadStreamPromise(entry), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      hash.update(chunk);
      reader?.feed(chunk);
      bytes += chunk.length;
    }
  });
  return { sha256: hash.digest('hex'), bytes };
}

async function readEntry(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(await zip.openReadStreamPromise(entry), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}

/** Opens the ZIP with yauzl's checks on: entry names (no absolute paths, no `..`, no backslashes) and sizes. */
async function openZip(path: string, autoClose: boolean): Promise<ZipFile> {
  try {
    return await openPromise(path, { lazyEntries: true, autoClose, strictFileNames: true, validateEntrySizes: true });
  } catch (error) {
    throw unreadable(error);
  }
}

const isDirectory = (entry: Entry) => entry.fileName.endsWith('/');

/** The parts of a bundle whose hashes its audit event records: hashed wherever they are in the ZIP, listed or not. */
const RECORDED_PARTS = new Set(['transcript.pdf', 'messages.json']);
/** Entries only a court bundle has: a ZIP holding one says it is a bundle. */
const BUNDLE_PARTS = new Set(['manifest.json', ...RECORDED_PARTS]);

/** A claim in the shape Firm Chat writes it, or null. */
function claim<T>(schema: z.ZodType<T>, value: unknown): T | null {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Each item of a manifest's list in its shape, a batch at a time; null when one is not. */
async function parseList<T>(items: unknown[], schema: z.ZodType<T>): Promise<T[] | null> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await nextTurn();
    const parsed = schema.safeParse(items[i]);
    if (!parsed.success) return null;
    out.push(parsed.data);
  }
  return out;
}

/** The manifest's bytes as Firm Chat writes them: small claims, and lists of files and missing exhibits in their shapes. */
async function parseManifest(bytes: Buffer): Promise<TManifest> {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new UncheckableZip('its manifest.json is not JSON');
  }
  const notOurs = new UncheckableZip('its manifest.json is not a Firm Chat manifest');
  const head = ZManifestHead.safeParse(json);
  if (!head.success) throw notOurs;
  const { files, missing = [] } = head.data as { files?: unknown; missing?: unknown };
  if (!Array.isArray(files) || !Array.isArray(missing)) throw notOurs;
  if (files.length + missing.length > MAX_ZIP_ENTRIES) throw new UncheckableZip('its manifest.json lists more files than any bundle holds');
  const listed = await parseList(files, ZListedFile);
  const declared = listed && (await parseList(missing, ZMissing));
  if (!listed || !declared) throw notOurs;
  return {
    subject: claim(ZSubject, head.data.subject),
    exportedAt: head.data.exportedAt,
    exportedBy: claim(ZExportedBy, head.data.exportedBy),
    auditHead: claim(ZAuditHead, head.data.auditHead),
    files: listed,
    missing: declared,
  };
}

/**
 * First pass, over the central directory only: refuses what a bundle never is (too many entries,
 * entries overlapping or inflating past MAX_INFLATED_BYTES: a zip bomb) and reads the manifest.
 * `seen.bundlePart` is set as soon as an entry has a bundle's part's name, even if the ZIP is
 * refused after.
 */
async function readManifest(
  path: string,
  fileBytes: number,
  seen: { bundlePart: boolean },
): Promise<{ manifest: TManifest; sha256: string }> {
  const zip = await openZip(path, false);
  try {
    if (zip.entryCount > MAX_ZIP_ENTRIES)
      throw new UncheckableZip(`it has ${zip.entryCount} entries, more than any bundle (${MAX_ZIP_ENTRIES})`);
    let stored = 0;
    let inflated = 0;
    let manifestEntry: Entry | null = null;
    try {
      for await (const entry of zip.eachEntry()) {
        stored += entry.compressedSize;
        if (entry.compressionMethod !== 0) inflated += entry.uncompressedSize;
        if (stored > fileBytes) throw new UncheckableZip('its entries overlap, as in a zip bomb');
        if (inflated > MAX_INFLATED_BYTES) throw new UncheckableZip('it would expand to more than 8 GB, as a zip bomb does');
        if (BUNDLE_PARTS.has(entry.fileName)) seen.bundlePart = true;
        if (entry.fileName !== 'manifest.json') continue;
        if (manifestEntry) throw new UncheckableZip('it holds two manifest.json files');
        manifestEntry = entry;
      }
    } catch (error) {
      throw unreadable(error);
    }
    if (!manifestEntry) throw new UncheckableZip('it has no manifest.json');
    if (manifestEntry.uncompressedSize > MAX_MANIFEST_BYTES) throw new UncheckableZip('its manifest.json is far larger than any bundle’s');
    let bytes: Buffer;
    try {
      bytes = await readEntry(zip, manifestEntry);
    } catch {
      throw new UncheckableZip('its manifest.json cannot be read: that part of the ZIP is damaged');
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    return { manifest: await parseManifest(bytes), sha256 };
  } finally {
    zip.close();
  }
}

/** A name from the ZIP as it may be shown: hidden and control characters written as their code. */
const shownName = (name: string) => showInvisibleCharacters(name).replace(/[\t\n\r]/g, describeCodePoint);

/**
 * The name the entry's own (local) header gives it, when it is not the ZIP directory's: a reader
 * that streams the ZIP from its start goes by that one. Null when they agree.
 */
async function otherLocalName(zip: ZipFile, entry: Entry): Promise<string | null> {
  const local = await zip.readLocalFileHeaderPromise(entry);
  return local.fileName.equals(entry.fileNameRaw) ? null : local.fileName.toString('utf8');
}

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
async function checkEntries(path: string, manifest: TManifest): Promise<{ manifest: TManifestCheck; parts: TBundleParts }> {
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

/** The exhibit numbers of the manifest's rows. */
function listedExhibits(files: TManifestFile[]): Set<number> {
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
async function accountForExhibits(
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
function checkFile(
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

/**
 * What a file is and, for a ZIP, whether every file in it matches its manifest. `known` is the
 * file's hash and size when the caller computed them while receiving it. Never throws for a
 * malformed or hostile file: its `problem` says what is wrong.
 */
export async function checkExportFile(path: string, known?: TSpooled): Promise<TFileCheck> {
  const { sha256, bytes } = known ?? (await hashFile(path));
  const { kind, plainJson, claimsExport } = await sniffKind(path, bytes);
  const none = { manifest: null, manifestSha256: null, parts: { transcriptSha256: null, jsonSha256: null }, problem: null };
  if (kind !== 'zip') return { kind, sha256, bytes, plainJson, claimsExport, ...none };
  const seen = { bundlePart: false };
  try {
    const read = await readManifest(path, bytes, seen);
    const { manifest, parts } = await checkEntries(path, read.manifest);
    return { kind, sha256, bytes, plainJson, claimsExport: true, manifest, manifestSha256: read.sha256, parts, problem: null };
  } catch (error) {
    if (!(error instanceof UncheckableZip)) throw error;
    return { kind, sha256, bytes, plainJson, claimsExport: seen.bundlePart, ...none, problem: error.message };
  }
}

/**
 * The answer as JSON, its rows serialized a batch at a time: a manifest can list a quarter of a
 * million files, and the event loop keeps turning while they are written.
 */
export async function serializeVerifyResult(result: TVerifyResult): Promise<string> {
  const { manifest, ...rest } = result;
  if (!manifest) return JSON.stringify(result);
  const { files, ...head } = manifest;
  const rows: string[] = [];
  for (let i = 0; i < files.length; i += YIELD_EVERY) {
    if (i) await nextTurn();
    rows.push(
      files
        .slice(i, i + YIELD_EVERY)
        .map((file) => JSON.stringify(file))
        .join(','),
    );
  }
  return `${JSON.stringify(rest).slice(0, -1)},"manifest":${JSON.stringify(head).slice(0, -1)},"files":[${rows.join(',')}]}}`;
}
