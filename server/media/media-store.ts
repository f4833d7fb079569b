import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { QueryTypes, type Transaction } from 'sequelize';
import { db } from '../core/db/db';

/** Where attachment bytes live. PostgreSQL by default; an S3-compatible store would implement the same. */
export type TMediaStore = {
  /**
   * Streams `source` into the attachment's storage, hashing as it goes; never holds the file whole.
   * Past `maxBytes` it stops with FileTooLargeError (the caller's transaction then keeps nothing).
   */
  write(
    attachmentId: number,
    source: AsyncIterable<Uint8Array>,
    options: { maxBytes: number; transaction: Transaction },
  ): Promise<{ size: number; sha256: string }>;
  /**
   * The attachment's bytes as a stream, read a little at a time as the consumer takes them; with
   * `range`, only bytes `start` to `end` (both included, within the file), and only those are read.
   */
  read(attachmentId: number, range?: TByteRange): Readable;
};

/** Bytes `start` to `end` of a file, both included (as HTTP's Range counts them). */
export type TByteRange = { start: number; end: number };

export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
  }
}

/** A stored file whose chunks skip a number: part of its bytes is gone, and what is left is not the file. */
export class ChunkGapError extends Error {
  override name = 'ChunkGapError';
  constructor(
    readonly attachmentId: number,
    readonly seq: number,
  ) {
    super(`attachment ${attachmentId} has no chunk ${seq}: part of its stored bytes is missing`);
  }
}

/** 256 KB rows: big enough that a 100 MB file is 400 rows, small enough to keep memory flat. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks fetched per query when reading. */
const CHUNKS_PER_READ = 1;

/** Attachment bytes in PostgreSQL (`attachment_chunks`): every instance serves every file, a backup holds them. */
export class PostgresMediaStore implements TMediaStore {
  constructor() {}

  async write(attachmentId: number, source: AsyncIterable<Uint8Array>, options: { maxBytes: number; transaction: Transaction }) {
    const hash = createHash('sha256');
    let size = 0;
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (final: boolean) => {
      while (pendingBytes >= CHUNK_BYTES || (final && pendingBytes > 0)) {
        const all = Buffer.concat(pending, pendingBytes);
        const chunk = all.subarray(0, Math.min(CHUNK_BYTES, all.length));
        const rest = all.subarray(chunk.length);
        pending = rest.length ? [rest] : [];
        pendingBytes = rest.length;
        await db().query('INSERT INTO attachment_chunks (attachment_id, seq, data) VALUES ($1, $2, $3)', {
          bind: [attachmentId, seq++, chunk],
          transaction: options.transaction,
        });
      }
    };
    // Any earlier attempt's rows were rolled back with it; this makes a retry start clean regardless.
    await db().query('DELETE FROM attachment_chunks WHERE attachment_id = $1', {
      bind: [attachmentId],
      transaction: options.transaction,
    });
    for await (const piece of source) {
      const buffer = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      size += buffer.length;
      if (size > options.maxBytes) throw new FileTooLargeError(options.maxBytes);
      hash.update(buffer);
      pending.push(buffer);
      pendingBytes += buffer.length;
      if (pendingBytes >= CHUNK_BYTES) await flush(false);
    }
    await flush(true);
    return { size, sha256: hash.digest('hex') };
  }

  /**
   * A file's chunks are numbered 0, 1, 2, … as write() stores them: a number missing means bytes
   * missing from the middle of the file, and the read fails there (ChunkGapError) rather than
   * splice the chunks either side of the gap into a file that never existed.
   */
  read(attachmentId: number, range?: TByteRange): Readable {
    if (range) return Readable.from(this.readRange(attachmentId, range), { objectMode: false });
    async function* chunks() {
      let next = 0;
      for (;;) {
        const rows = await db().query<{ seq: number; data: Buffer }>(
          'SELECT seq, data FROM attachment_chunks WHERE attachment_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3',
          { bind: [attachmentId, next, CHUNKS_PER_READ], type: QueryTypes.SELECT },
        );
        for (const row of rows) {
          if (Number(row.seq) !== next) throw new ChunkGapError(attachmentId, next);
          next += 1;
          yield row.data;
        }
        if (rows.length < CHUNKS_PER_READ) return;
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  /**
   * Where each chunk starts comes from the chunks' lengths (read without their bytes: the column is
   * stored out of line, uncompressed, so its length is known without fetching it), not assumed from
   * CHUNK_BYTES: the store stays right for a file chunked any other way. Then each chunk the range
   * touches gives only its part of the range: substring() of an uncompressed out-of-line value
   * fetches just those bytes.
   */
  private async *readRange(attachmentId: number, range: TByteRange): AsyncGenerator<Buffer> {
    const layout = await db().query<{ seq: number; bytes: number }>(
      'SELECT seq, octet_length(data) AS bytes FROM attachment_chunks WHERE attachment_id = $1 ORDER BY seq',
      { bind: [attachmentId], type: QueryTypes.SELECT },
    );
    let first = 0; // where the chunk starts in the file
    for (const [index, chunk] of layout.entries()) {
      const bytes = chunk.bytes;
      const last = first + bytes - 1;
      if (first > range.end) return;
      // A gap moves every byte after it: the rest of the range would be of a file that never existed.
      if (Number(chunk.seq) !== index) throw new ChunkGapError(attachmentId, index);
      if (last >= range.start) {
        const from = Math.max(range.start, first);
        const to = Math.min(range.end, last);
        const [row] = await db().query<{ data: Buffer }>(
          'SELECT substring(data FROM $3 FOR $4) AS data FROM attachment_chunks WHERE attachment_id = $1 AND seq = $2',
          { bind: [attachmentId, chunk.seq, from - first + 1, to - from + 1], type: QueryTypes.SELECT },
        );
        if (!row) throw new Error(`attachment ${attachmentId} lost chunk ${chunk.seq} while it was read`);
        yield row.data;
      }
      first += bytes;
    }
  }
}
