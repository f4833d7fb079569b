import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import type { TPdfPart } from './pdf-parts';
import type { TExportHeader } from './read-export';
import { renderPdf } from './render-pdf';

/** Messages between the server and this worker (write-pdf-export.ts holds the other end). */
export type TToWorker = { type: 'part'; part: TPdfPart } | { type: 'end' };
export type TFromWorker = { type: 'next' } | { type: 'data'; chunk: Uint8Array } | { type: 'done' };

const port = parentPort!;
const send = (message: TFromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/** Asks the server for one part at a time: the next is read (and its photos scaled) while this one is drawn. */
async function* partsFromServer(): AsyncIterable<TPdfPart> {
  for (;;) {
    const reply = new Promise<TToWorker>((resolve) => port.once('message', resolve));
    send({ type: 'next' });
    const message = await reply;
    if (message.type === 'end') return;
    yield message.part;
  }
}

const toServer = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    const copy = new Uint8Array(chunk); // its own buffer, handed over without another copy
    send({ type: 'data', chunk: copy }, [copy.buffer]);
    callback();
  },
});

await renderPdf(workerData as TExportHeader, partsFromServer(), toServer);
send({ type: 'done' });
