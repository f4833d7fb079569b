import { fromBufferPromise } from 'yauzl';
import { ZipFile } from 'yazl';

/** Every entry of a ZIP, in order (a test's bundles are small). */
export async function readZip(bytes: Buffer): Promise<[string, Buffer][]> {
  const zip = await fromBufferPromise(bytes, { lazyEntries: true });
  const entries: [string, Buffer][] = [];
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    entries.push([entry.fileName, Buffer.concat(chunks)]);
  }
  return entries;
}

/** A ZIP of these entries, as anyone could make one (yazl, deflated). */
export function zipOf(entries: [string, Buffer][]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, bytes] of entries) zip.addBuffer(bytes, name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}
