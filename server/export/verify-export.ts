import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { openPromise, type Entry, type ZipFile } from 'yauzl';
import { z } from 'zod';
import type { TStoredFile } from './find-stored-file';
import type { TSpooled } from './hashing-spool';
import { exhibitNumberOf, RecordedExhibitsReader, type TRecordedExhibits } from './recorded-exhibits';

// "Verify a copy" (README "Evidence exports"): what a file is, by its content, and for a court
// bundle whether every file still matches its manifest, and every exhibit what its messages.json
// recorded (a manifest edited to match a changed file still disagrees). Pure file checks, shared by
// `POST /api/export/verify` and `npm run export:verify` (which works with no server or database).

export type TExportKind = 'zip' | 'pdf' | 'json' | 'unknown';
export type TVerdict = 'genuine' | 'altered' | 'unknown';
export type TBundlePart = 'transcript.pdf' | 'messages.json' | 'manifest.json';

/**
 * One file a manifest lists, checked: `actualSha256` is the hash of the bytes the ZIP holds (null
 * when it holds none, or they cannot be read); `matches` when they are the manifest's and, for an
 * exhibit, what messages.json recorded for it; `problem` says what is wrong in a few words.
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

/** A bundle's manifest, each listed file checked against the bytes in the ZIP. */
export type TManifestCheck = {
  subject: unknown;
  exportedAt: string;
  exportedBy: unknown;
  auditHead: unknown;
  files: TManifestFile[];
  missing: { exhibit: number; name: string; reason: string }[];
  /** Entries in the ZIP the manifest does not list. */
  extra: string[];
  /** Every listed file found and matching, nothing extra. */
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
  /** Why a ZIP could not be checked (DAMAGED_ZIP, a zip bomb, no manifest); null when it could. */
  problem: string | null;
};

/** A ZIP's `problem` when it cannot be read at all (cut short, overwritten): said plainly, not in the ZIP library's words. */
export const DAMAGED_ZIP = 'it is damaged or incomplete';

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

const ZManifest = z.looseObject({
  subject: z.unknown(),
  exportedAt: z.string(),
  exportedBy: z.unknown(),
  auditHead: z.unknown(),
  files: z.array(z.object({ path: z.string(), sha256: z.string(), bytes: z.number().int().nonnegative() })),
  missing: z.array(z.object({ exhibit: z.number(), name: z.string(), reason: z.string() })).default([]),
});
type TManifest = z.infer<typeof ZManifest>;

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

/**
 * What the file is by its first bytes: a ZIP, a PDF, or a JSON object with `exportedAt` (an export
 * or a manifest); `plainJson` for other JSON (read whole when it is within the bytes read).
 */
async function sniffKind(path: string): Promise<{ kind: TExportKind; plainJson: boolean }> {
  const file = await open(path, 'r');
  let head: Buffer;
  let whole: boolean;
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES + 1);
    const { bytesRead } = await file.read(buffer, 0, SNIFF_BYTES + 1, 0);
    whole = bytesRead <= SNIFF_BYTES;
    head = buffer.subarray(0, Math.min(bytesRead, SNIFF_BYTES));
  } finally {
    await file.close();
  }
  const magic = head.subarray(0, 4).toString('latin1');
  if (magic === 'PK\x03\x04' || magic === 'PK\x05\x06') return { kind: 'zip', plainJson: false };
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return { kind: 'pdf', plainJson: false };
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  // Its header comes first (README "Evidence exports"): a large export need not be read whole to tell.
  if (text.startsWith('{') && /"exportedAt"\s*:/.test(text)) return { kind: 'json', plainJson: false };
  return { kind: 'unknown', plainJson: whole && isJson(text) };
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

/**
 * First pass, over the central directory only: refuses what a bundle never is (too many entries,
 * entries overlapping or inflating past MAX_INFLATED_BYTES: a zip bomb) and reads the manifest.
 */
async function readManifest(path: string, fileBytes: number): Promise<{ manifest: TManifest; sha256: string }> {
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
    let parsed: ReturnType<typeof ZManifest.safeParse>;
    try {
      parsed = ZManifest.safeParse(JSON.parse(bytes.toString('utf8')));
    } catch {
      throw new UncheckableZip('its manifest.json is not JSON');
    }
    if (!parsed.success) throw new UncheckableZip('its manifest.json is not a Firm Chat manifest');
    return { manifest: parsed.data, sha256: createHash('sha256').update(bytes).digest('hex') };
  } finally {
    zip.close();
  }
}

/** The parts of a bundle whose hashes its audit event records: hashed wherever they are in the ZIP, listed or not. */
const RECORDED_PARTS = new Set(['transcript.pdf', 'messages.json']);

/**
 * Second pass: every entry hashed as it streams out of the ZIP (what the manifest does not list is
 * extra), messages.json read for what it records of each exhibit; then each listed file judged
 * against the manifest and, for an exhibit, against messages.json (checkFile).
 */
async function checkEntries(path: string, manifest: TManifest): Promise<{ manifest: TManifestCheck; parts: TBundleParts }> {
  const files: TManifestFile[] = manifest.files.map((file) => ({
    ...file,
    found: false,
    matches: false,
    actualSha256: null,
    problem: null,
  }));
  const listed = new Map<string, TManifestFile[]>();
  for (const file of files) listed.set(file.path, [...(listed.get(file.path) ?? []), file]);
  const received = new Map<string, TSpooled | null>();
  const extra: string[] = [];
  let extras = 0;
  let manifestSeen = false;
  const parts: TBundleParts = { transcriptSha256: null, jsonSha256: null };
  /** undefined: the ZIP has no messages.json; null: it has one that cannot be read as Firm Chat's. */
  let recorded: TRecordedExhibits | null | undefined;
  const zip = await openZip(path, true);
  try {
    for await (const entry of zip.eachEntry()) {
      if (isDirectory(entry)) continue;
      if (entry.fileName === 'manifest.json' && !manifestSeen) {
        manifestSeen = true;
        continue;
      }
      // A second entry of one name is extra: an unzip program would keep only one of the two.
      const first = !received.has(entry.fileName);
      const matching = first ? listed.get(entry.fileName) : undefined;
      const part = first && RECORDED_PARTS.has(entry.fileName) ? entry.fileName : null;
      if (!matching) {
        extras += 1;
        if (extra.length < MAX_EXTRA_LISTED) extra.push(entry.fileName);
        if (!part) continue;
      }
      const reader = part === 'messages.json' ? new RecordedExhibitsReader() : undefined;
      const actual = await hashEntry(zip, entry, reader).catch(() => null);
      received.set(entry.fileName, actual);
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
  const declared = new Set(manifest.missing.map((missing) => missing.exhibit));
  for (const file of files) checkFile(file, received, recorded, declared);
  return {
    manifest: {
      subject: manifest.subject,
      exportedAt: manifest.exportedAt,
      exportedBy: manifest.exportedBy,
      auditHead: manifest.auditHead,
      files,
      missing: manifest.missing,
      extra,
      allMatch: extras === 0 && files.every((file) => file.found && file.matches),
    },
    parts,
  };
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
    Object.assign(file, { found: false, matches: false, problem: 'not in the ZIP' });
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
    const sha256 = recorded.get(exhibit);
    if (sha256 === undefined) {
      problems.push(`messages.json records no exhibit ${exhibit}`);
      altered = true;
    } else if (sha256 !== null && sha256 !== actual.sha256) {
      const said = declared.has(exhibit);
      problems.push(
        `differs from what messages.json recorded for exhibit ${exhibit}${said ? ', as the manifest’s list of missing files says' : ''}`,
      );
      altered ||= !said;
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
  const { kind, plainJson } = await sniffKind(path);
  const none = { manifest: null, manifestSha256: null, parts: { transcriptSha256: null, jsonSha256: null }, problem: null };
  if (kind !== 'zip') return { kind, sha256, bytes, plainJson, ...none };
  try {
    const read = await readManifest(path, bytes);
    const { manifest, parts } = await checkEntries(path, read.manifest);
    return { kind, sha256, bytes, plainJson, manifest, manifestSha256: read.sha256, parts, problem: null };
  } catch (error) {
    if (!(error instanceof UncheckableZip)) throw error;
    return { kind, sha256, bytes, plainJson, ...none, problem: error.message };
  }
}
