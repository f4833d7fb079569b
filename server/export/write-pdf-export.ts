import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { TFromWorker, TToWorker } from './pdf-export-worker';
import type { TExportHeader, TExportMessage } from './read-export';
import { writeChunk } from './write-json-export';

const WORKER_ENTRY = new URL('./pdf-export-worker.mjs', import.meta.url);

/**
 * Laying out text is CPU work (about a second per thousand messages): done on the server's own
 * thread, it would hold up every webhook and page for that long. The worker draws the PDF; this
 * thread reads the pages from PostgreSQL, one ahead, and writes what the worker sends back. The
 * worker's heap is capped, so an export that kept its messages would fail rather than grow.
 */
export const PDF_WORKER_HEAP_MB = 64;

export async function writePdfExport(header: TExportHeader, pages: AsyncIterable<TExportMessage[]>, out: Writable): Promise<void> {
  const iterator = pages[Symbol.asyncIterator]();
  const worker = new Worker(WORKER_ENTRY, {
    workerData: header,
    resourceLimits: { maxOldGenerationSizeMb: PDF_WORKER_HEAP_MB },
    stdout: false,
    stderr: false,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let written = Promise.resolve();
      // A read ahead that fails after the export has already failed must not go unhandled (that ends the process).
      const readAhead = () => {
        const next = iterator.next();
        next.catch(() => undefined);
        return next;
      };
      let ahead = readAhead();
      let finished = false;
      const fail = (error: unknown) => {
        finished = true;
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      const post = (message: TToWorker) => worker.postMessage(message);
      worker.on('message', (message: TFromWorker) => {
        if (message.type === 'data')
          written = written.then(() =>
            writeChunk(out, Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength)),
          );
        else if (message.type === 'next') {
          const current = ahead;
          ahead = readAhead(); // read while the worker draws this one (the generator queues the call)
          current.then((next) => post(next.done ? { type: 'end' } : { type: 'page', messages: next.value }), fail);
        } else if (message.type === 'done') {
          finished = true;
          written.then(resolve, reject);
        }
      });
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (!finished) fail(new Error(`The PDF worker stopped (exit code ${code}) before the document was complete.`));
      });
    });
  } finally {
    await iterator.return?.();
    await worker.terminate();
  }
}
