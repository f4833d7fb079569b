import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { TExportHeader, TExportMessage } from './read-export';

/** Writes, waiting whenever the destination asks it to (a slow disk or reader). */
export async function writeChunk(out: Writable, chunk: string | Buffer): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/**
 * The JSON export: `{firm, subject, period, count, exportedAt, exportedBy, messages: [...]}`, one
 * message per line, written as the pages arrive.
 */
export async function writeJsonExport(header: TExportHeader, pages: AsyncIterable<TExportMessage[]>, out: Writable): Promise<void> {
  const head = JSON.stringify(header, null, 2);
  await writeChunk(out, `${head.slice(0, head.lastIndexOf('}')).trimEnd()},\n  "messages": [`);
  let first = true;
  for await (const page of pages) {
    const lines = page.map((message) => `${first ? ((first = false), '') : ','}\n    ${JSON.stringify(message)}`);
    await writeChunk(out, lines.join(''));
  }
  await writeChunk(out, first ? ']\n}\n' : '\n  ]\n}\n');
}
