import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Response } from 'express';

/** How a send ended: the reader has every byte, or went away first. */
export type TSendOutcome = 'sent' | 'gone';

/** Rejects when `signal` aborts: raced against waits that a vanished reader would leave pending forever. */
function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(new Error('the reader went away'));
    else signal.addEventListener('abort', () => reject(new Error('the reader went away')), { once: true });
  });
}

async function readLastByte(path: string, bytes: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const last = Buffer.alloc(1);
    await file.read(last, 0, 1, bytes - 1);
    return last;
  } finally {
    await file.close();
  }
}

/**
 * Sends a spooled export (its headers already set, Content-Length among them) and calls `record`
 * once every byte but the last has been handed to the connection, sending the last byte only after
 * it: the reader cannot hold the whole file without its audit event existing, and a reader that
 * goes away before that (or while the file was prepared) leaves nothing recorded (server/export/README.md "Evidence
 * exports"). `signal` aborts when the connection closes.
 */
export async function sendSpooledExport(
  res: Response,
  file: { path: string; bytes: number },
  signal: AbortSignal,
  record: () => Promise<void>,
): Promise<TSendOutcome> {
  const aborted = whenAborted(signal);
  aborted.catch(() => undefined);
  let last: Buffer = Buffer.alloc(0);
  try {
    if (file.bytes > 0) last = await readLastByte(file.path, file.bytes);
    let flushed: Promise<void> = Promise.resolve();
    if (file.bytes > 1) {
      for await (const chunk of createReadStream(file.path, { start: 0, end: file.bytes - 2 })) {
        // The callback runs once this chunk has gone to the socket; chunks go in order, so the last one's says all have.
        flushed = new Promise<void>((resolve, reject) => res.write(chunk as Buffer, (error) => (error ? reject(error) : resolve())));
        flushed.catch(() => undefined);
        if (res.writableNeedDrain) await Promise.race([once(res, 'drain'), aborted]);
      }
    }
    await Promise.race([flushed, aborted]);
  } catch {
    if (signal.aborted) return 'gone';
    throw new Error('The export could not be sent.');
  }
  if (signal.aborted) return 'gone';
  await record();
  const ended = new Promise<void>((resolve) => res.end(last, () => resolve()));
  await Promise.race([ended, aborted]).catch(() => undefined);
  return signal.aborted && !res.writableFinished ? 'gone' : 'sent';
}
