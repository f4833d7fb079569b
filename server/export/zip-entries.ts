import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { openPromise, type Entry, type ZipFile } from 'yauzl';
import { unreadable } from './bundle-check-problems';
import type { TSpooled } from './hashing-spool';
import type { RecordedExhibitsReader } from './recorded-exhibits';

// Reading a court bundle's ZIP with yauzl, for "Verify a copy": opened with its checks on, each
// entry streamed out (never extracted to disk).

/** Opens the ZIP with yauzl's checks on: entry names (no absolute paths, no `..`, no backslashes) and sizes. */
export async function openZip(path: string, autoClose: boolean): Promise<ZipFile> {
  try {
    return await openPromise(path, { lazyEntries: true, autoClose, strictFileNames: true, validateEntrySizes: true });
  } catch (error) {
    throw unreadable(error);
  }
}

/** The entry's hash and size as it streams out of the ZIP; `reader` is fed the same bytes. */
export async function hashEntry(zip: ZipFile, entry: Entry, reader?: RecordedExhibitsReader): Promise<TSpooled> {
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

export async function readEntry(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(await zip.openReadStreamPromise(entry), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}

export const isDirectory = (entry: Entry) => entry.fileName.endsWith('/');

/**
 * The name the entry's own (local) header gives it, when it is not the ZIP directory's: a reader
 * that streams the ZIP from its start goes by that one. Null when they agree.
 */
export async function otherLocalName(zip: ZipFile, entry: Entry): Promise<string | null> {
  const local = await zip.readLocalFileHeaderPromise(entry);
  return local.fileName.equals(entry.fileNameRaw) ? null : local.fileName.toString('utf8');
}
