import { Writable } from 'node:stream';

/** A logger destination that keeps each line written to it (pino writes one JSON object a line). */
export function captureLogLines(): { lines: string[]; destination: Writable } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, destination };
}
