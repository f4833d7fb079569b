import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import type { TMediaStore } from '../media';
import type { TSigningKey } from '../signing';
import { exhibitFileName, exhibitPath } from './exhibit-file-name';
import { notHeldReason } from './exhibit-held';
import { phoneExportsOf } from './phone-export-exhibits';
import { MANIFEST_SIGNATURE_ENTRY, SIGNATURE_ALGORITHM, signDigest } from './export-signature';
import type { TWriteExport } from './export-writer';
import { spoolWhileHashing, type THashingSpool, type TSpooled } from './hashing-spool';
import type { TExportHeader, TExportMessage, TExportSnapshot } from './read-export';
import { writeChunk, writeJsonExport } from './write-json-export';
import { writePdfExport } from './write-pdf-export';

/** The bundle as written to its temporary file, with what its audit event records (server/export/README.md "Evidence exports"). */
export type TBundle = TSpooled & {
  path: string;
  /** Files of the export, stored or not; `missingExhibits` of them are not in the bundle (or not whole). */
  exhibits: number;
  missingExhibits: number;
  manifestSha256: string;
  transcriptSha256: string;
  jsonSha256: string;
  /** The firm's signatures over each part's digest, for its audit event (a part taken out of the bundle is still proven). */
  partSignatures: { 'transcript.pdf': string; 'messages.json': string; 'manifest.json': string };
};

/** One line of the manifest's `files`: a file in the bundle and the SHA-256 of its bytes. */
type TManifestFile = { path: string; sha256: string; bytes: number };
/** One line of the manifest's `missing`: an exhibit whose bytes the bundle does not hold (whole). */
type TMissingExhibit = { exhibit: number; name: string; reason: string };
type TAttachment = TExportMessage['attachments'][number];

/** The PDF writer, called with the snapshot and the store for the photos it draws. */
const writeTranscript: TWriteExport = writePdfExport;

/** The first failure of the ZIP, of its file or of the request: every wait on yazl is raced against it. */
type TFailure = { promise: Promise<never>; error: Error | null };

function watchFailures(zip: ZipFile, written: Promise<unknown>, signal: AbortSignal): TFailure {
  const failure: TFailure = { promise: Promise.resolve() as never, error: null };
  failure.promise = new Promise<never>((_resolve, reject) => {
    const fail = (error: unknown) => {
      failure.error ??= error instanceof Error ? error : new Error(String(error));
      reject(failure.error);
    };
    zip.on('error', fail); // every error: after a failure, entries still queued may fail too
    written.catch(fail);
    if (signal.aborted) fail(new Error('the reader went away'));
    signal.addEventListener('abort', () => fail(new Error('the reader went away')), { once: true });
  });
  failure.promise.catch(() => undefined);
  return failure;
}

/** Writes one format to a file of its own while hashing it. */
async function spoolPart(path: string, write: (out: Writable) => Promise<void>): Promise<TSpooled> {
  const spool = spoolWhileHashing(path);
  try {
    await write(spool.input);
    return await spool.finish();
  } catch (error) {
    await spool.abandon();
    throw error;
  }
}

/** `gap`: the read stopped where the store lacks a chunk (media-store.ts: part of the stored bytes is gone). */
type TCopied =
  | { outcome: 'copied'; sha256: string; bytes: number; complete: boolean; gap: boolean }
  | { outcome: 'no bytes' }
  | { outcome: 'unreadable'; gap: boolean };

/** The store's ChunkGapError, told by its name (the media feature's index does not export the class). */
const isChunkGap = (error: unknown) => error instanceof Error && error.name === 'ChunkGapError';

/**
 * Copies one stored file into the ZIP as it is read from the store, hashing it. The first piece is
 * read before the entry is added: a file with no bytes left (retention deleted them) or that cannot
 * be read adds nothing. A read that fails part-way ends the entry where it stopped (`complete:
 * false`): an entry cannot be taken back once begun, so the manifest lists what the bundle really
 * holds and the exhibit is named among the missing too.
 */
async function copyExhibit(zip: ZipFile, path: string, source: Readable, mtime: Date, failure: TFailure): Promise<TCopied> {
  const pieces = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let first: IteratorResult<Buffer>;
  try {
    first = await Promise.race([pieces.next(), failure.promise]);
  } catch (error) {
    source.destroy();
    if (failure.error) throw error;
    return { outcome: 'unreadable', gap: isChunkGap(error) };
  }
  if (first.done) return { outcome: 'no bytes' };
  const hash = createHash('sha256');
  let bytes = 0;
  let complete = true;
  let gap = false;
  async function* body(): AsyncGenerator<Buffer> {
    let next = first;
    try {
      while (!next.done) {
        hash.update(next.value);
        bytes += next.value.length;
        yield next.value;
        try {
          next = await pieces.next();
        } catch (error) {
          complete = false;
          gap = isChunkGap(error);
          return;
        }
      }
    } finally {
      source.destroy();
    }
  }
  const entry = Readable.from(body(), { objectMode: false });
  zip.addReadStreamLazy(path, { mtime, compress: false }, (callback) => callback(null, entry));
  try {
    await Promise.race([finished(entry), failure.promise]);
  } catch (error) {
    entry.destroy();
    throw error;
  }
  return { outcome: 'copied', sha256: hash.digest('hex'), bytes, complete, gap };
}

/**
 * Why an exhibit that was held is not (whole) in the bundle, as a phrase like notHeldReason's; null
 * when it is. Bytes found gone here went after the snapshot was read: destroyed all the same.
 */
function copyProblem(file: TAttachment, copied: TCopied, path: string): string | null {
  if (copied.outcome === 'no bytes') return notHeldReason({ state: file.state, destroyed: true }, 'bundle');
  if (copied.outcome !== 'copied')
    return copied.gap
      ? 'the start of its stored bytes is missing from the database: none of it could be copied when the bundle was made'
      : 'its bytes could not be read from the database when the bundle was made';
  if (!copied.complete || (file.size !== null && copied.bytes !== file.size))
    return `only ${copied.bytes} of its ${file.size ?? 'unknown number of'} bytes could be read when the bundle was made${copied.gap ? ' (part of its stored bytes is missing from the database)' : ''}: ${path} is incomplete`;
  if (file.sha256 && copied.sha256 !== file.sha256)
    return `its bytes no longer match the SHA-256 recorded when it was stored: ${path} holds what is stored now`;
  return null;
}

/** The manifest is written as the bundle is: `files` line by line, `missing` kept aside until the end. */
class ManifestWriter {
  readonly path: string;
  private readonly spool: THashingSpool;
  private readonly missingPath: string;
  private readonly missing: Writable;
  private readonly started: Promise<void>;
  private files = 0;
  private missingCount = 0;

  constructor(dir: string, header: TExportHeader, fingerprint: string) {
    this.path = join(dir, 'manifest.json');
    this.spool = spoolWhileHashing(this.path);
    this.missingPath = join(dir, 'missing.json');
    this.missing = createWriteStream(this.missingPath, { mode: 0o600 });
    const head = {
      subject: header.subject,
      exportedAt: header.exportedAt,
      exportedBy: header.exportedBy,
      auditHead: header.auditHead,
      // Which key signed manifest.sig (server/decisions/0023-signing-key.md): a check knows which public key to use.
      signingKey: { algorithm: SIGNATURE_ALGORITHM, fingerprint },
    };
    const text = JSON.stringify(head, null, 2);
    this.started = writeChunk(this.spool.input, `${text.slice(0, text.lastIndexOf('}')).trimEnd()},\n  "files": [`);
    this.started.catch(() => undefined); // reported by the next write
  }

  get missingExhibits(): number {
    return this.missingCount;
  }

  async addFile(file: TManifestFile): Promise<void> {
    await this.started;
    await writeChunk(this.spool.input, `${this.files++ ? ',' : ''}\n    ${JSON.stringify(file)}`);
  }

  async addMissing(missing: TMissingExhibit): Promise<void> {
    await writeChunk(this.missing, `${this.missingCount++ ? ',' : ''}\n    ${JSON.stringify(missing)}`);
  }

  async finish(): Promise<TSpooled> {
    await this.started;
    await writeChunk(this.spool.input, `${this.files ? '\n  ' : ''}],\n  "missing": [`);
    await new Promise<void>((resolve, reject) => this.missing.end((error?: Error | null) => (error ? reject(error) : resolve())));
    await pipeline(createReadStream(this.missingPath), this.spool.input, { end: false });
    await writeChunk(this.spool.input, `${this.missingCount ? '\n  ' : ''}]\n}\n`);
    return this.spool.finish();
  }

  async abandon(): Promise<void> {
    this.missing.destroy();
    await this.spool.abandon();
  }
}

/**
 * The court bundle (server/export/README.md "Evidence exports"), written in the export's one snapshot: the transcript
 * PDF from the first pass of messages, `messages.json` (the JSON export, byte for byte) from the
 * second, every stored file's bytes as `exhibits/NNN-<name>` from the third (then the phones' exports imported messages
 * came from, as `phone-exports/<import id>-<name>`), and `manifest.json`
 * last, listing each file with its SHA-256 and signed by the firm's key (`manifest.sig`). Each part and the ZIP itself go to temporary files while
 * hashed; exhibits stream from the store into the ZIP one at a time, uncompressed (they are
 * compressed already): memory stays flat whatever the number and size of the files.
 */
export async function writeBundle(
  dir: string,
  header: TExportHeader,
  pages: AsyncIterable<TExportMessage[]>,
  snapshot: TExportSnapshot,
  deps: { store: TMediaStore; signal: AbortSignal; signingKey: TSigningKey },
): Promise<TBundle> {
  const transcriptPath = join(dir, 'transcript.pdf');
  const jsonPath = join(dir, 'messages.json');
  const transcript = await spoolPart(transcriptPath, (out) => writeTranscript(header, pages, out, { snapshot, store: deps.store }));
  deps.signal.throwIfAborted();
  const json = await spoolPart(jsonPath, (out) => writeJsonExport(header, snapshot.pages(), out));
  deps.signal.throwIfAborted();

  const mtime = new Date(header.exportedAt);
  const zip = new ZipFile();
  const zipSpool = spoolWhileHashing(join(dir, 'bundle.zip'));
  const written = pipeline(zip.outputStream, zipSpool.input);
  written.catch(() => undefined);
  const failure = watchFailures(zip, written, deps.signal);
  const manifest = new ManifestWriter(dir, header, deps.signingKey.fingerprint);
  // The parts yazl opens when it reaches them: closed on a failure, which leaves yazl waiting on them.
  const opened: Readable[] = [];
  const addPart = (path: string, file: string) =>
    zip.addReadStreamLazy(path, { mtime, compress: true }, (callback) => {
      const part = createReadStream(file);
      opened.push(part);
      callback(null, part);
    });
  try {
    addPart('transcript.pdf', transcriptPath);
    addPart('messages.json', jsonPath);
    await manifest.addFile({ path: 'transcript.pdf', sha256: transcript.sha256, bytes: transcript.bytes });
    await manifest.addFile({ path: 'messages.json', sha256: json.sha256, bytes: json.bytes });

    let exhibits = 0;
    const importIds = new Set<string>();
    for await (const page of snapshot.pages()) {
      for (const message of page) if (message.imported) importIds.add(message.imported.importId);
      for (const file of page.flatMap((message) => message.attachments)) {
        if (failure.error) throw failure.error;
        exhibits += 1;
        const name = file.fileName ?? exhibitFileName(null, file.mimeType);
        const notHeld = notHeldReason(file, 'bundle');
        if (notHeld) {
          await manifest.addMissing({ exhibit: file.exhibit, name, reason: notHeld });
          continue;
        }
        const path = exhibitPath(file.exhibit, file.fileName, file.mimeType);
        const copied =
          file.size === 0 ? addEmptyExhibit(zip, path, mtime) : await copyExhibit(zip, path, deps.store.read(file.id), mtime, failure);
        if (copied.outcome === 'copied') await manifest.addFile({ path, sha256: copied.sha256, bytes: copied.bytes });
        const problem = copyProblem(file, copied, path);
        if (problem) await manifest.addMissing({ exhibit: file.exhibit, name, reason: problem });
      }
    }

    // The phones' own exports the imported messages came from, whole (their SHA-256 is on the trail's import.commit).
    for (const phoneExport of await phoneExportsOf(importIds, header.exportedBy.id)) {
      const copied = await copyExhibit(zip, phoneExport.path, deps.store.read(phoneExport.attachmentId), mtime, failure);
      if (copied.outcome === 'copied' && copied.complete)
        await manifest.addFile({ path: phoneExport.path, sha256: copied.sha256, bytes: copied.bytes });
    }

    const manifestFile = await manifest.finish();
    addPart('manifest.json', manifest.path);
    // Over the manifest's exact bytes (a few MB at most: Ed25519 signs a whole message), which name every other file's hash.
    const manifestSignature = deps.signingKey.sign(await readFile(manifest.path));
    zip.addBuffer(Buffer.from(`${manifestSignature}\n`), MANIFEST_SIGNATURE_ENTRY, { mtime, compress: false });
    zip.end();
    await Promise.race([written, failure.promise]);
    const bundle = await zipSpool.finish();
    return {
      ...bundle,
      path: join(dir, 'bundle.zip'),
      exhibits,
      missingExhibits: manifest.missingExhibits,
      manifestSha256: manifestFile.sha256,
      transcriptSha256: transcript.sha256,
      jsonSha256: json.sha256,
      partSignatures: {
        'transcript.pdf': signDigest(deps.signingKey, transcript.sha256),
        'messages.json': signDigest(deps.signingKey, json.sha256),
        'manifest.json': signDigest(deps.signingKey, manifestFile.sha256),
      },
    };
  } catch (error) {
    zip.outputStream.unpipe();
    for (const part of opened) part.destroy();
    await manifest.abandon();
    await zipSpool.abandon();
    throw error;
  }
}

/** The SHA-256 of no bytes. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** A stored file of no bytes has nothing to read back from the store: it goes in as it is. */
function addEmptyExhibit(zip: ZipFile, path: string, mtime: Date): TCopied {
  zip.addBuffer(Buffer.alloc(0), path, { mtime, compress: false });
  return { outcome: 'copied', sha256: EMPTY_SHA256, bytes: 0, complete: true, gap: false };
}
