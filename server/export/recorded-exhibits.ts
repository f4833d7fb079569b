import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';

// What a court bundle's messages.json records of each exhibit (README "Evidence exports"): the
// SHA-256 each file had when the firm stored it. A bundle whose exhibit and manifest were both
// changed to match still disagrees with it, with no server needed to tell. Read as the ZIP streams
// out, a line at a time: the JSON export writes one message per line (write-json-export.ts), so a
// bundle of any size is never parsed whole.

/** Exhibit number → the SHA-256 messages.json records for it (null: no bytes were stored). */
export type TRecordedExhibits = Map<number, string | null>;

/** A message line past this is not one Firm Chat writes (a message with megabytes of edits is a few MB). */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
/** A messages.json not laid out a message per line (reformatted, say) is parsed whole up to this size. */
const MAX_WHOLE_BYTES = 24 * 1024 * 1024;

const ZRecordedMessage = z.looseObject({
  attachments: z.array(z.looseObject({ exhibit: z.number().int().positive(), sha256: z.string().nullable() })),
});

/** Not a messages.json this reader can take: the check then says so rather than guessing. */
class Unreadable extends Error {}

/** Feeds on the bytes of one messages.json; `finish` gives what it records, or null when it cannot be read as one. */
export class RecordedExhibitsReader {
  private readonly decoder = new StringDecoder('utf8');
  private readonly recorded: TRecordedExhibits = new Map();
  private line = '';
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
      const text = this.line + this.decoder.write(chunk);
      const lines = text.split('\n');
      this.line = lines.pop()!;
      if (this.line.length > MAX_LINE_CHARS) throw new Unreadable();
      for (const line of lines) this.take(line);
    } catch {
      this.failed = true;
      this.line = '';
    }
  }

  finish(): TRecordedExhibits | null {
    if (!this.failed) {
      try {
        this.take(this.line + this.decoder.end());
        if (this.stage === 'done') return this.recorded;
      } catch {
        // read whole below
      }
    }
    return this.whole ? readWhole(Buffer.concat(this.whole)) : null;
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
    recorded.set(file.exhibit, file.sha256?.toLowerCase() ?? null);
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

/** The exhibit number of a bundle's path ("exhibits/007-contract.pdf" → 7); null for any other file. */
export function exhibitNumberOf(path: string): number | null {
  const match = /^exhibits\/(\d{3,})-/.exec(path);
  return match ? Number(match[1]) : null;
}
