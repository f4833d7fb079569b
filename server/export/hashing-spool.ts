import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What was written: the SHA-256 (hex) of the bytes and how many there were. */
export type TSpooled = { sha256: string; bytes: number };

export type THashingSpool = {
  /** Write the bytes here (respecting backpressure), then call `finish`. */
  input: Writable;
  /** Ends the input and resolves once every byte is on disk. */
  finish(): Promise<TSpooled>;
  /** Stops writing; the file is the caller's to remove with its directory. */
  abandon(): Promise<void>;
};

/**
 * A file written while its SHA-256 is computed: an export's hash heads its response, so the body is
 * complete before it is sent (server/export/README.md "Evidence exports"), and is never held in memory to get it.
 */
export function spoolWhileHashing(path: string): THashingSpool {
  const hash = createHash('sha256');
  let bytes = 0;
  const input = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  const written = pipeline(input, createWriteStream(path, { mode: 0o600 }));
  written.catch(() => undefined); // a failed disk is reported by finish(), not as an unhandled rejection meanwhile
  return {
    input,
    async finish() {
      if (!input.writableEnded) input.end(); // a pipeline into `input` may have ended it already
      await written;
      return { sha256: hash.digest('hex'), bytes };
    },
    async abandon() {
      input.destroy();
      await written.catch(() => undefined);
    },
  };
}
