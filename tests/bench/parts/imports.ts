import { randomBytes } from 'node:crypto';
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import { migrateOnly, startSignedInApp } from '../app-under-test';
import { bySize, createDatabase, type TBenchTools } from '../bench-support';
import { peakRssDuring, rssMb } from '../process-memory';

// History from the phone (server/imports/README.md "History from the phone"): a long chat's export —
// 20,000 messages and 200 MB of photos — sent, previewed and imported, with the app process's memory
// growth compared with the export's size (flat means streamed) and the time each step takes.

/** A chat of `messages` lines, a photo every `messages / files` of them; its photos are random bytes (they do not compress). */
async function writeExport(file: string, messages: number, files: number, fileBytes: number): Promise<void> {
  const zip = new ZipFile();
  const lines: string[] = [];
  const every = Math.max(1, Math.floor(messages / Math.max(files, 1)));
  let photo = 0;
  for (let i = 0; i < messages; i++) {
    const at = new Date(Date.UTC(2024, 0, 1, 9) + i * 90_000);
    const stamp = `${String(at.getUTCDate()).padStart(2, '0')}/${String(at.getUTCMonth() + 1).padStart(2, '0')}/${at.getUTCFullYear()}, ${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
    const sender = i % 3 === 0 ? 'Sam Lawyer' : 'Bench Client';
    if (photo < files && i % every === 0) lines.push(`${stamp} - ${sender}: IMG-${String(photo++).padStart(5, '0')}.jpg (file attached)`);
    else lines.push(`${stamp} - ${sender}: Message ${i} about the matter, with a few more words to make it a realistic length.`);
  }
  zip.addBuffer(Buffer.from(`${lines.join('\n')}\n`), '_chat.txt');
  for (let i = 0; i < photo; i++) zip.addBuffer(randomBytes(fileBytes), `IMG-${String(i).padStart(5, '0')}.jpg`, { compress: false });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}

export async function benchImports(adminUrl: string, tools: TBenchTools) {
  const { messages, files, fileMb } = bySize(tools.size, {
    full: { messages: 20_000, files: 200, fileMb: 1 },
    quick: { messages: 5_000, files: 40, fileMb: 1 },
    smoke: { messages: 300, files: 4, fileMb: 0.25 },
  });
  console.log(`\n== Imports: a phone's export of ${messages} messages and ${files * fileMb} MB of photos, previewed and imported`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-import-'));
  const file = path.join(dir, 'export.zip');
  await writeExport(file, messages, files, Math.round(fileMb * 1024 * 1024));
  const exportMb = (await stat(file)).size / 1024 / 1024;
  const url = await createDatabase(adminUrl, 'bench_imports');
  await migrateOnly(url);
  const app = await startSignedInApp(url);
  try {
    await new Promise((r) => setTimeout(r, 1_000));
    const before = rssMb(app.serverPid);
    const preview = await peakRssDuring(app.serverPid, async () => {
      const res = await fetch(`${app.appUrl}/api/imports/whatsapp`, {
        method: 'POST',
        headers: { cookie: app.cookie, origin: app.appUrl, 'content-type': 'application/zip', 'x-file-name': 'export.zip' },
        body: await openAsBlob(file),
      });
      if (res.status !== 200) throw new Error(`the preview answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { importId: string; messages: number; attachments: number };
    });
    if (preview.result.messages !== messages || preview.result.attachments !== files) throw new Error('the preview miscounted');
    const middle = rssMb(app.serverPid);
    const commit = await peakRssDuring(app.serverPid, async () => {
      const res = await fetch(`${app.appUrl}/trpc/imports.commit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: app.cookie, origin: app.appUrl },
        body: JSON.stringify({ json: { importId: preview.result.importId, clientId: app.clientId, firmParticipants: ['Sam Lawyer'] } }),
      });
      if (res.status !== 200) throw new Error(`the commit answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { result: { data: { json: { imported: number } } } }).result.data.json;
    });
    if (commit.result.imported !== messages) throw new Error(`imported ${commit.result.imported} of ${messages}`);
    for (const [name, step, base] of [
      ['sent and previewed (POST /api/imports/whatsapp)', preview, before],
      ['imported (imports.commit)', commit, middle],
    ] as const) {
      tools.report({
        part: 'imports',
        name: `${name}: peak RSS growth, ${exportMb.toFixed(0)} MB export (${step.seconds.toFixed(1)} s, ${(messages / step.seconds).toFixed(0)} messages/s)`,
        value: step.peak - base,
        unit: 'MB',
        ceiling: exportMb,
        ceilingName: 'export size',
        ratio: (step.peak - base) / exportMb,
        target: '≤ 0.5 (never holds half the export)',
        pass: step.peak - base <= exportMb / 2,
      });
    }
  } finally {
    await app.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
