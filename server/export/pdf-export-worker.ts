import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import type { TExportHeader, TExportMessage } from './read-export';
import { renderPdf } from './render-pdf';

/** Messages between the server and this worker (write-pdf-export.ts holds the other end). */
export type TToWorker = { type: 'page'; messages: TExportMessage[] } | { type: 'end' };
export type TFromWorker = { type: 'next' } | { type: 'data'; chunk: Uint8Array } | { type: 'done' };

const port = parentPort!;
const send = (message: TFromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/** Asks the server for one page of messages at a time: the next is read while this one is drawn. */
async function* pagesFromServer(): AsyncIterable<TExportMessage[]> {
  for (;;) {
    const reply = new Promise<TToWorker>((resolve) => port.once('message', resolve));
    send({ type: 'next' });
    const message = await reply;
    if (message.type === 'end') return;
    yield message.messages;
  }
}

const toServer = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    const copy = new Uint8Array(chunk); // its own buffer, handed over without another copy
    send({ type: 'data', chunk: copy }, [copy.buffer]);
    callback();
  },
});

await renderPdf(workerData as TExportHeader, pagesFromServer(), toServer);
send({ type: 'done' });
