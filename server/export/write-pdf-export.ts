import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { TMediaStore } from '../media';
import type { TFromWorker, TToWorker } from './pdf-export-worker';
import type { TPdfPart } from './pdf-parts';
import { withPhotos } from './pdf-photos';
import type { TExportHeader, TExportMessage, TExportSnapshot } from './read-export';
import { writeChunk } from './write-json-export';

const WORKER_ENTRY = new URL('./pdf-export-worker.mjs', import.meta.url);

/**
 * Laying out text is CPU work (about a second per thousand messages): done on the server's own
 * thread, it would hold up every webhook and page for that long. The worker draws the PDF; this
 * thread reads the pages from PostgreSQL, one part ahead, scales that part's photos, and writes what
 * the worker sends back. The worker's heap is capped, so an export that kept its messages would
 * fail rather than grow.
 */
export const PDF_WORKER_HEAP_MB = 64;

/** What the PDF needs besides the messages: the snapshot (for the index of exhibits) and the files' store (for the photos). */
export type TPdfSources = { snapshot: TExportSnapshot; store: TMediaStore };

/** The parts the worker draws: the messages with their photos, then the exhibits of the same snapshot. */
async function* partsOf(pages: AsyncIterable<TExportMessage[]>, sources: Partial<TPdfSources>): AsyncIterable<TPdfPart> {
  yield* withPhotos(pages, sources.store);
  if (!sources.snapshot) return;
  for await (const exhibits of sources.snapshot.exhibits()) yield { type: 'exhibits', exhibits };
}

/** The photos' bytes, handed to the worker rather than copied (this thread no longer needs them). */
function transferablesOf(part: TPdfPart): ArrayBuffer[] {
  if (part.type !== 'messages') return [];
  return part.photos.flatMap((photo) => ('jpeg' in photo ? [photo.jpeg.buffer as ArrayBuffer] : []));
}

/**
 * The PDF export (render-pdf.ts), written to `out`. Without `sources` (a caller that has no
 * snapshot or store) photos are listed rather than drawn and there is no index of exhibits.
 */
export async function writePdfExport(
  header: TExportHeader,
  pages: AsyncIterable<TExportMessage[]>,
  out: Writable,
  sources: Partial<TPdfSources> = {},
): Promise<void> {
  const iterator = partsOf(pages, sources)[Symbol.asyncIterator]();
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
      const post = (message: TToWorker, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer);
      worker.on('message', (message: TFromWorker) => {
        if (message.type === 'data')
          written = written.then(() =>
            writeChunk(out, Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength)),
          );
        else if (message.type === 'next') {
          const current = ahead;
          ahead = readAhead(); // read while the worker draws this one (the generator queues the call)
          current
            .then((next) => (next.done ? post({ type: 'end' }) : post({ type: 'part', part: next.value }, transferablesOf(next.value))))
            .catch(fail);
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
