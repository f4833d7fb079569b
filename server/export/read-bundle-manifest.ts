import { createHash } from 'node:crypto';
import type { Entry } from 'yauzl';
import { z } from 'zod';
import { UncheckableZip, unreadable } from './bundle-check-problems';
import { MANIFEST_SIGNATURE_ENTRY, SIGNATURE_ALGORITHM } from './export-signature';
import { nextTurn, YIELD_EVERY } from './event-loop-turns';
import type { TManifestCheck, TManifestSubject } from './verify-result-types';
import { openZip, readEntry } from './zip-entries';

// The first pass over a court bundle (server/export/README.md "Evidence exports"): the ZIP's central directory
// only, refusing what a bundle never is, then its manifest.json read in the shapes Firm Chat writes.

/** More entries than any bundle has (10,000 exhibits is a large one): a ZIP past this is not read. */
export const MAX_ZIP_ENTRIES = 250_000;
/** Bytes inflated from compressed entries at most (a bundle's transcript and JSON are far smaller): past this it is a zip bomb. */
export const MAX_INFLATED_BYTES = 8 * 1024 ** 3;
/** A manifest.json larger than this is not read: it lists about 150,000 exhibits (one of 10,000 is under 2 MB), and is parsed whole. */
const MAX_MANIFEST_BYTES = 24 * 1024 * 1024;

/** The parts of a bundle whose hashes its audit event records: hashed wherever they are in the ZIP, listed or not. */
export const RECORDED_PARTS = new Set(['transcript.pdf', 'messages.json']);
/** Entries only a court bundle has: a ZIP holding one says it is a bundle. */
const BUNDLE_PARTS = new Set(['manifest.json', MANIFEST_SIGNATURE_ENTRY, ...RECORDED_PARTS]);
/** A manifest.sig is one base64 signature (88 characters): one far larger is not read. */
const MAX_SIGNATURE_BYTES = 1024;

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
const ZSigningKey = z.object({ algorithm: z.literal(SIGNATURE_ALGORITHM), fingerprint: z.string().regex(/^[0-9a-f]{64}$/) });
const ZManifestHead = z.looseObject({ exportedAt: z.string().max(64) });
/** A bundle's path is at most `exhibits/`, the number and 150 bytes of name; a hash is 64 letters. */
const ZListedFile = z.object({ path: z.string().min(1).max(1_024), sha256: z.string().max(128), bytes: z.number().int().nonnegative() });
/** A missing file's name is the name it was stored with (a phone's, once up to a few hundred characters). */
const ZMissing = z.object({ exhibit: z.number().int(), name: z.string().max(4_096), reason: ZText });

/** A bundle's manifest as read: its claims, and the files it lists and says are missing. */
export type TManifest = {
  subject: TManifestSubject | null;
  exportedAt: string;
  exportedBy: TManifestCheck['exportedBy'];
  auditHead: TManifestCheck['auditHead'];
  /** The key the manifest says signed it (its `manifest.sig`); null when it names none. */
  signingKey: z.infer<typeof ZSigningKey> | null;
  files: z.infer<typeof ZListedFile>[];
  missing: z.infer<typeof ZMissing>[];
};

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
    signingKey: claim(ZSigningKey, head.data.signingKey),
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
export async function readManifest(
  path: string,
  fileBytes: number,
  seen: { bundlePart: boolean },
): Promise<{ manifest: TManifest; sha256: string; bytes: Buffer; signature: string | null }> {
  const zip = await openZip(path, false);
  try {
    if (zip.entryCount > MAX_ZIP_ENTRIES)
      throw new UncheckableZip(`it has ${zip.entryCount} entries, more than any bundle (${MAX_ZIP_ENTRIES})`);
    let stored = 0;
    let inflated = 0;
    let manifestEntry: Entry | null = null;
    let signatureEntry: Entry | null = null;
    try {
      for await (const entry of zip.eachEntry()) {
        stored += entry.compressedSize;
        if (entry.compressionMethod !== 0) inflated += entry.uncompressedSize;
        if (stored > fileBytes) throw new UncheckableZip('its entries overlap, as in a zip bomb');
        if (inflated > MAX_INFLATED_BYTES) throw new UncheckableZip('it would expand to more than 8 GB, as a zip bomb does');
        if (BUNDLE_PARTS.has(entry.fileName)) seen.bundlePart = true;
        if (entry.fileName === MANIFEST_SIGNATURE_ENTRY) {
          if (signatureEntry) throw new UncheckableZip(`it holds two ${MANIFEST_SIGNATURE_ENTRY} files`);
          signatureEntry = entry;
        }
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
    const signature = signatureEntry ? await readSignature(zip, signatureEntry) : null;
    return { manifest: await parseManifest(bytes), sha256, bytes, signature };
  } finally {
    zip.close();
  }
}

/** manifest.sig's text, trimmed; '' (a signature that verifies nothing) when it is too large or cannot be read. */
async function readSignature(zip: Awaited<ReturnType<typeof openZip>>, entry: Entry): Promise<string> {
  if (entry.uncompressedSize > MAX_SIGNATURE_BYTES) return '';
  try {
    return (await readEntry(zip, entry)).toString('utf8').trim();
  } catch {
    return '';
  }
}
