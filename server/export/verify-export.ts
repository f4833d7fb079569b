import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { openPromise, type Entry, type ZipFile } from 'yauzl';
import { z } from 'zod';
import type { TSpooled } from './hashing-spool';

// "Verify a copy" (README "Evidence exports"): what a file is, by its content, and for a court
// bundle whether every file still matches its manifest. Pure file checks, shared by
// `POST /api/export/verify` and `npm run export:verify` (which works with no server or database).

export type TExportKind = 'zip' | 'pdf' | 'json' | 'unknown';
export type TVerdict = 'genuine' | 'altered' | 'unknown';
export type TBundlePart = 'transcript.pdf' | 'messages.json' | 'manifest.json';

/** A bundle's manifest, each listed file checked against the bytes in the ZIP. */
export type TManifestCheck = {
  subject: unknown;
  exportedAt: string;
  exportedBy: unknown;
  auditHead: unknown;
  files: { path: string; sha256: string; bytes: number; found: boolean; matches: boolean }[];
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
  verdict: TVerdict;
  summary: string;
};

/** What the file itself says, before the audit trail is asked. */
export type TFileCheck = {
  kind: TExportKind;
  sha256: string;
  bytes: number;
  manifest: TManifestCheck | null;
  /** The SHA-256 of a ZIP's manifest.json: what a bundle's audit event records, whatever the ZIP around it. */
  manifestSha256: string | null;
  /** Why a ZIP could not be checked (malformed, a zip bomb, no manifest); null when it could. */
  problem: string | null;
};

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

/** What the file is by its first bytes: a ZIP, a PDF, or a JSON object with `exportedAt` (an export or a manifest). */
async function sniffKind(path: string): Promise<TExportKind> {
  const file = await open(path, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await file.read(buffer, 0, SNIFF_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
  const magic = head.subarray(0, 4).toString('latin1');
  if (magic === 'PK\x03\x04' || magic === 'PK\x05\x06') return 'zip';
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  // Its header comes first (README "Evidence exports"): a large export need not be read whole to tell.
  if (text.startsWith('{') && /"exportedAt"\s*:/.test(text)) return 'json';
  return 'unknown';
}

async function hashEntry(zip: ZipFile, entry: Entry): Promise<TSpooled> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(await zip.openReadStreamPromise(entry), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      hash.update(chunk);
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
    throw new UncheckableZip(`it is not a readable ZIP (${(error as Error).message})`);
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
      if (error instanceof UncheckableZip) throw error;
      throw new UncheckableZip(`it is not a well-formed ZIP (${(error as Error).message})`);
    }
    if (!manifestEntry) throw new UncheckableZip('it has no manifest.json');
    if (manifestEntry.uncompressedSize > MAX_MANIFEST_BYTES) throw new UncheckableZip('its manifest.json is far larger than any bundle’s');
    let bytes: Buffer;
    try {
      bytes = await readEntry(zip, manifestEntry);
    } catch (error) {
      throw new UncheckableZip(`its manifest.json cannot be read (${(error as Error).message})`);
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

/** Second pass: every entry the manifest lists hashed as it streams out of the ZIP; what it does not list is extra. */
async function checkEntries(path: string, manifest: TManifest): Promise<TManifestCheck> {
  const files = manifest.files.map((file) => ({ ...file, found: false, matches: false }));
  const listed = new Map<string, typeof files>();
  for (const file of files) listed.set(file.path, [...(listed.get(file.path) ?? []), file]);
  const seen = new Set<string>();
  const extra: string[] = [];
  let extras = 0;
  let manifestSeen = false;
  const zip = await openZip(path, true);
  try {
    for await (const entry of zip.eachEntry()) {
      if (isDirectory(entry)) continue;
      if (entry.fileName === 'manifest.json' && !manifestSeen) {
        manifestSeen = true;
        continue;
      }
      const matching = seen.has(entry.fileName) ? undefined : listed.get(entry.fileName);
      if (!matching) {
        // Not listed, or a second entry of one name (an unzip program would keep one of the two).
        extras += 1;
        if (extra.length < MAX_EXTRA_LISTED) extra.push(entry.fileName);
        continue;
      }
      seen.add(entry.fileName);
      const expected = matching[0]!;
      let matches = false;
      // A size that differs needs no reading: it does not match, whatever the bytes.
      if (entry.uncompressedSize === expected.bytes) {
        const actual = await hashEntry(zip, entry).catch(() => null);
        matches = actual !== null && actual.sha256 === expected.sha256.toLowerCase() && actual.bytes === expected.bytes;
      }
      for (const file of matching) Object.assign(file, { found: true, matches });
    }
  } catch (error) {
    throw new UncheckableZip(`it is not a well-formed ZIP (${(error as Error).message})`);
  } finally {
    zip.close();
  }
  return {
    subject: manifest.subject,
    exportedAt: manifest.exportedAt,
    exportedBy: manifest.exportedBy,
    auditHead: manifest.auditHead,
    files,
    missing: manifest.missing,
    extra,
    allMatch: extras === 0 && files.every((file) => file.found && file.matches),
  };
}

/**
 * What a file is and, for a ZIP, whether every file in it matches its manifest. `known` is the
 * file's hash and size when the caller computed them while receiving it. Never throws for a
 * malformed or hostile file: its `problem` says what is wrong.
 */
export async function checkExportFile(path: string, known?: TSpooled): Promise<TFileCheck> {
  const { sha256, bytes } = known ?? (await hashFile(path));
  const kind = await sniffKind(path);
  if (kind !== 'zip') return { kind, sha256, bytes, manifest: null, manifestSha256: null, problem: null };
  try {
    const read = await readManifest(path, bytes);
    const manifest = await checkEntries(path, read.manifest);
    return { kind, sha256, bytes, manifest, manifestSha256: read.sha256, problem: null };
  } catch (error) {
    if (!(error instanceof UncheckableZip)) throw error;
    return { kind, sha256, bytes, manifest: null, manifestSha256: null, problem: error.message };
  }
}
