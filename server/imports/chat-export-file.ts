import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { openPromise, type Entry, type ZipFile } from 'yauzl';
import { ImportRefusal } from './import-refusal';

// The file WhatsApp's "Export chat" gives: a ZIP of the chat's text and its files, or the text
// alone. A ZIP is read with yauzl's checks on (no absolute names, no `..`, sizes as declared) and
// refused before anything is unpacked when it claims more than an export can hold.

/** The longest line read: a chat message is at most 65,536 characters; anything longer is not a chat. */
export const MAX_LINE_CHARS = 1024 * 1024;
const MAX_ENTRIES = 100_000;
const MAX_TEXT_BYTES = 512 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 4 * 1024 * 1024 * 1024;
/** Photos and voice notes hardly compress; an entry a hundred times its packed size (and over 1 MB) is a bomb. */
const MAX_RATIO = 100;
/** The whole ZIP: what it unpacks to, against its own size (with room for a small export of text). */
const MAX_OVERALL_RATIO = 20;

export type TChatExport = {
  /** The chat's text, a line at a time (decoded as UTF-8; invalid bytes refuse the file). */
  lines(): AsyncIterable<string>;
  /** The files beside the text, by name (the names the text refers to). */
  fileNames: ReadonlySet<string>;
  fileSize(name: string): number;
  openFile(name: string): Promise<Readable>;
  close(): void;
};

const notAnExport = () =>
  new ImportRefusal('This is not a WhatsApp chat export: choose the .zip or .txt that "Export chat" made on the phone.');

export async function openChatExport(file: string): Promise<TChatExport> {
  const handle = await open(file, 'r');
  const head = Buffer.alloc(4);
  try {
    await handle.read(head, 0, 4, 0);
  } finally {
    await handle.close();
  }
  if (head.readUInt32LE(0) === 0x04034b50) return openZipExport(file);
  return {
    lines: () => readLines(createReadStream(file)),
    fileNames: new Set(),
    fileSize: () => 0,
    openFile: () => Promise.reject(new Error('a bare chat text has no files')),
    close: () => undefined,
  };
}

async function openZipExport(file: string): Promise<TChatExport> {
  let zip: ZipFile;
  try {
    zip = await openPromise(file, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true });
  } catch {
    throw new ImportRefusal('The ZIP file cannot be read: export the chat again from the phone.');
  }
  try {
    const entries = new Map<string, Entry>();
    const texts: Entry[] = [];
    let unpacked = 0;
    let count = 0;
    // Chat text compresses about tenfold, photos and voice notes hardly: an export unpacks to a few times its size at most.
    const mostUnpacked = Math.min(MAX_UNPACKED_BYTES, Math.max(64 * 1024 * 1024, MAX_OVERALL_RATIO * (await stat(file)).size));
    for await (const entry of zip.eachEntry()) {
      if (++count > MAX_ENTRIES)
        throw new ImportRefusal(`The ZIP holds more than ${MAX_ENTRIES.toLocaleString('en-GB')} files: it is not a chat export.`);
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      // yauzl refuses absolute names and `..` (strictFileNames off: a phone's backslashes are only characters).
      if (name.split(/[\\/]/).some((part: string) => part === '..') || path.isAbsolute(name) || /^[a-zA-Z]:/.test(name)) {
        throw new ImportRefusal('The ZIP names a file outside itself ("..", or an absolute path): it is not a chat export.');
      }
      unpacked += entry.uncompressedSize;
      if (entry.uncompressedSize > 1024 * 1024 && entry.uncompressedSize > MAX_RATIO * Math.max(entry.compressedSize, 1)) {
        throw new ImportRefusal('The ZIP unpacks to far more than it holds (a "ZIP bomb"): it is not a chat export.');
      }
      if (unpacked > MAX_UNPACKED_BYTES) throw new ImportRefusal('The ZIP unpacks to more than 4 GB: it is not a chat export.');
      if (unpacked > mostUnpacked)
        throw new ImportRefusal('The ZIP unpacks to far more than it holds (a "ZIP bomb"): it is not a chat export.');
      const base = path.posix.basename(name.replace(/\\/g, '/'));
      if (/\.txt$/i.test(base)) texts.push(entry);
      else entries.set(base, entry);
    }
    const chats = texts.filter((entry) => /(^|\/)_chat\.txt$/i.test(entry.fileName));
    if (chats.length > 1) throw new ImportRefusal('The ZIP holds more than one chat (_chat.txt): export one chat at a time.');
    const text = chats[0] ?? (texts.length === 1 ? texts[0] : undefined);
    if (!text) throw notAnExport();
    if (text.uncompressedSize > MAX_TEXT_BYTES) throw new ImportRefusal('The chat text is over 512 MB: it is not a chat export.');
    for (const other of texts) if (other !== text) entries.set(path.posix.basename(other.fileName), other);
    return {
      lines: async function* () {
        yield* readLines(await zip.openReadStreamPromise(text));
      },
      fileNames: new Set(entries.keys()),
      fileSize: (name) => entries.get(name)?.uncompressedSize ?? 0,
      openFile: (name) => zip.openReadStreamPromise(entries.get(name)!),
      close: () => zip.close(),
    };
  } catch (error) {
    zip.close();
    if (error instanceof ImportRefusal) throw error;
    // yauzl's own checks: a name leaving the ZIP (absolute, `..`), sizes not as declared.
    if (/path|file ?name/i.test((error as Error).message)) {
      throw new ImportRefusal('The ZIP names a file outside itself ("..", or an absolute path): it is not a chat export.');
    }
    throw new ImportRefusal('The ZIP file cannot be read: export the chat again from the phone.');
  }
}

/** A line without its `\r`, and without NUL characters (no text column holds one, and no phone writes one). */
const clean = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line).replaceAll('\0', '');

/** The text's lines without their ends (`\n` or `\r\n`), decoded strictly: bad bytes or an endless line refuse the file. */
export async function* readLines(source: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending = '';
  let lineNo = 1;
  const decode = (bytes?: Buffer) => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      // The line it is on: the lines this piece ends before its first bad byte (read again, leniently, to find it).
      const lenient = pending + (bytes ? new TextDecoder('utf-8').decode(bytes) : '');
      const bad = lenient.indexOf('\ufffd');
      const line = lineNo + (bad < 0 ? 0 : lenient.slice(0, bad).split('\n').length - 1);
      throw new ImportRefusal(`Line ${line} of the chat is not valid UTF-8 text: export the chat again from the phone.`);
    }
  };
  const take = function* (text: string, final: boolean) {
    const parts = (pending + text).split('\n');
    pending = parts.pop()!;
    for (const line of parts) {
      yield clean(line);
      lineNo += 1;
    }
    if (pending.length > MAX_LINE_CHARS) {
      throw new ImportRefusal(`Line ${lineNo} of the chat is over a million characters long: it is not a chat export.`);
    }
    if (final && pending) yield clean(pending);
  };
  for await (const bytes of source) yield* take(decode(bytes), false);
  yield* take(decode(), true);
}
