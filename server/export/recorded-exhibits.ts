import { z } from 'zod';
import { exhibitPath } from './exhibit-file-name';

// What a court bundle's messages.json records of each exhibit (server/export/README.md "Evidence exports"): the
// SHA-256 each file had when the firm stored it, and whether the firm held it. A bundle whose
// exhibit and manifest were both changed to match still disagrees with it, with no server needed to
// tell. Read as the ZIP streams out, a line at a time: the JSON export writes one message per line
// (write-json-export.ts), so a bundle of any size is never parsed whole.

/** What messages.json records of one exhibit. */
export type TRecordedExhibit = {
  /** The SHA-256 recorded when the firm stored it (lower case); null when no bytes were stored. */
  sha256: string | null;
  /** The firm held its bytes when the export was read (stored, not destroyed): the bundle holds it, or its manifest says why not. */
  held: boolean;
  /** The name and type it was stored with: where a bundle holds it (recordedPath). */
  fileName: string | null;
  mimeType: string;
  /** Its size in bytes as recorded; null when unknown. */
  bytes: number | null;
};

/** Exhibit number → what messages.json records of it. */
export type TRecordedExhibits = Map<number, TRecordedExhibit>;

/**
 * A line past this is not one Firm Chat writes. A line is one message: its text (at most 4,096
 * characters, the webhook's and the composer's limit) with at most 20 earlier texts kept
 * (message-updates.ts), under 0.6 MB of JSON even if every character were escaped; records kept
 * from before those limits (hundreds of edits: export.test.ts exports 300 of 4,000 characters, 1.2
 * MB) fit with room to spare. Bounded because the line is held whole and parsed in one step.
 */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;
/**
 * A messages.json not laid out a message per line (reformatted, so no longer the bytes its
 * manifest and the trail recorded) is parsed whole only up to this size: one step of the event
 * loop, kept short.
 */
const MAX_WHOLE_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

const ZRecordedMessage = z.looseObject({
  attachments: z.array(
    z.looseObject({
      exhibit: z.number().int().positive(),
      sha256: z.string().nullable(),
      state: z.string(),
      destroyed: z.boolean().optional(),
      fileName: z.string().nullable().optional(),
      mimeType: z.string().optional(),
      size: z.number().nullable().optional(),
    }),
  ),
});

/** Not a messages.json this reader can take: the check then says so rather than guessing. */
class Unreadable extends Error {}

/**
 * Feeds on the bytes of one messages.json; `finish` gives what it records, or null when it cannot
 * be read as one. Each chunk is scanned once for line ends, and a line is decoded and parsed once,
 * when it ends: the work is linear in the bytes, whatever the chunks and however long a line.
 */
export class RecordedExhibitsReader {
  private readonly recorded: TRecordedExhibits = new Map();
  /** The pieces of the line not ended yet. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stage: 'header' | 'messages' | 'done' = 'header';
  private failed = false;
  /** The bytes kept for a parse of the whole, while they fit in `maxWholeBytes`. */
  private whole: Buffer[] | null = [];
  private wholeBytes = 0;

  /** `maxWholeBytes`: how much is kept to parse whole if it is not laid out a message per line (0: never). */
  constructor(private readonly maxWholeBytes = MAX_WHOLE_BYTES) {}

  feed(chunk: Buffer): void {
    if (this.whole) {
      this.wholeBytes += chunk.length;
      if (this.wholeBytes <= this.maxWholeBytes) this.whole.push(chunk);
      else this.whole = null;
    }
    if (this.failed) return;
    try {
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        this.hold(chunk.subarray(start, end));
        // A line ends at a byte no UTF-8 sequence contains: its bytes decode whole.
        const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
        this.pending = [];
        this.pendingBytes = 0;
        this.take(line);
        start = end + 1;
      }
      if (start < chunk.length) this.hold(chunk.subarray(start));
    } catch {
      this.failed = true;
      this.pending = [];
      this.pendingBytes = 0;
    }
  }

  finish(): TRecordedExhibits | null {
    if (!this.failed) {
      try {
        this.take(Buffer.concat(this.pending, this.pendingBytes).toString('utf8'));
        if (this.stage === 'done') return this.recorded;
      } catch {
        // read whole below
      }
    }
    return this.whole ? readWhole(Buffer.concat(this.whole)) : null;
  }

  private hold(piece: Buffer): void {
    this.pendingBytes += piece.length;
    if (this.pendingBytes > MAX_LINE_BYTES) throw new Unreadable();
    if (piece.length) this.pending.push(piece);
  }

  private take(line: string): void {
    const trimmed = line.trim();
    if (this.stage === 'header') {
      if (trimmed === '"messages": [') this.stage = 'messages';
      else if (trimmed === '"messages": []') this.stage = 'done';
      return;
    }
    if (this.stage === 'done' || trimmed === '') return;
    if (trimmed === ']' || trimmed === '],') {
      this.stage = 'done';
      return;
    }
    record(this.recorded, JSON.parse(trimmed.endsWith(',') ? trimmed.slice(0, -1) : trimmed));
    this.whole = null; // laid out a message per line: no need to keep the bytes to read it whole
  }
}

function record(recorded: TRecordedExhibits, message: unknown): void {
  const parsed = ZRecordedMessage.safeParse(message);
  if (!parsed.success) throw new Unreadable();
  for (const file of parsed.data.attachments) {
    if (recorded.has(file.exhibit)) throw new Unreadable(); // one number, two files: not an export
    recorded.set(file.exhibit, {
      sha256: file.sha256?.toLowerCase() ?? null,
      held: file.state === 'stored' && file.destroyed !== true,
      fileName: file.fileName ?? null,
      mimeType: file.mimeType ?? '',
      bytes: file.size ?? null,
    });
  }
}

function readWhole(bytes: Buffer): TRecordedExhibits | null {
  try {
    const parsed = z.looseObject({ messages: z.array(z.unknown()) }).safeParse(JSON.parse(bytes.toString('utf8')));
    if (!parsed.success) return null;
    const recorded: TRecordedExhibits = new Map();
    for (const message of parsed.data.messages) record(recorded, message);
    return recorded;
  } catch {
    return null;
  }
}

/** Where a bundle holds the exhibit (`exhibits/007-contract.pdf`), named as write-bundle.ts names it. */
export const recordedPath = (exhibit: number, file: TRecordedExhibit) => exhibitPath(exhibit, file.fileName, file.mimeType);

/** The exhibit number of a bundle's path ("exhibits/007-contract.pdf" → 7); null for any other file. */
export function exhibitNumberOf(path: string): number | null {
  const match = /^exhibits\/(\d{3,})-/.exec(path);
  return match ? Number(match[1]) : null;
}
