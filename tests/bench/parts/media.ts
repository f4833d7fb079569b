import { createHmac } from 'node:crypto';
import { migrateOnly, startSignedInApp } from '../app-under-test';
import { bySize, createDatabase, query, SECRET, type TBenchTools } from '../bench-support';
import { peakRssDuring, rssMb } from '../process-memory';

// Part 7, files: large files downloaded from the provider simulator, served to a browser, uploaded
// by one and sent to the provider, with the app process's memory growth compared with the file's size.

export async function benchMedia(adminUrl: string, tools: TBenchTools) {
  // Two sizes in one process: memory that does not grow with the file is what "streamed" means. A
  // garbage-collected process's RSS also moves with allocation churn (freed buffers wait for a
  // collection), so growth is compared with the file: a process holding the file would grow by it.
  const sizes = bySize(tools.size, { full: [20, 100], quick: [4, 16], smoke: [1, 2] });
  console.log(
    `\n== 7. Files: ${sizes.join(' MB and ')} MB files streamed in and out of the app process; its resident memory sampled every 50 ms`,
  );
  const { startProviderSimulator } = await import('../../../server/dev/provider-sim/provider-simulator');
  const key = 'bench-provider-key';
  const sim = await startProviderSimulator({ apiKey: key, webhookSecret: SECRET, autoReceipts: false });
  const url = await createDatabase(adminUrl, 'bench_media');
  await migrateOnly(url);
  const app = await startSignedInApp(url, { MESSAGING_API_KEY: key, MESSAGING_PROVIDER_URL: sim.url }).catch(async (error: unknown) => {
    await sim.close();
    throw error;
  });
  const { appUrl, serverPid, cookie, clientId } = app;
  try {
    await new Promise((r) => setTimeout(r, 1_000));
    tools.report({ part: 'media', name: 'app RSS at rest', value: rssMb(serverPid), unit: 'MB' });

    /** Peak growth over the RSS just before, and the rate, of one transfer. */
    const measureOne = async (work: () => Promise<unknown>) => {
      const before = rssMb(serverPid);
      const { peak, seconds } = await peakRssDuring(serverPid, work);
      return { growth: peak - before, seconds };
    };
    const growth: Record<string, { growth: number; seconds: number }[]> = {};
    const record = (name: string, value: { growth: number; seconds: number }) => (growth[name] ??= []).push(value);
    for (const mb of sizes) {
      const bytes = mb * 1024 * 1024;
      const media = await sim.addMedia({ size: bytes, mimeType: 'application/pdf', fileName: 'bundle.pdf' });
      let storedId = 0;
      record(
        'downloaded from the provider into PostgreSQL',
        await measureOne(async () => {
          const body = JSON.stringify({
            entry: [
              {
                changes: [
                  {
                    field: 'messages',
                    value: {
                      messages: [
                        {
                          from: '447700900123',
                          id: `wamid.bench-big-${mb}`,
                          timestamp: String(Math.floor(Date.now() / 1000)),
                          type: 'document',
                          document: { id: media.id, mime_type: 'application/pdf', filename: 'bundle.pdf' },
                        },
                      ],
                    },
                  },
                ],
              },
            ],
          });
          await fetch(`${appUrl}/api/webhooks/chat`, {
            method: 'POST',
            body,
            headers: {
              'content-type': 'application/json',
              'x-service-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
            },
          });
          for (;;) {
            const [row] = await query<{ state: string; id: number }>(url, 'SELECT id, state FROM attachments ORDER BY id DESC LIMIT 1');
            if (row?.state === 'failed') throw new Error('the benchmark download failed');
            if (row?.state === 'stored') return void (storedId = row.id);
            await new Promise((r) => setTimeout(r, 50));
          }
        }),
      );
      record(
        'served to a browser (GET /api/media)',
        await measureOne(async () => {
          const res = await fetch(`${appUrl}/api/media/${storedId}`, { headers: { cookie } });
          let got = 0;
          const reader = (res.body as ReadableStream<Uint8Array>).getReader();
          for (let part = await reader.read(); !part.done; part = await reader.read()) got += part.value.length;
          if (got !== bytes) throw new Error(`served ${got} bytes`);
        }),
      );
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), 'upload.pdf');
      let uploadedId = 0;
      record(
        'uploaded by a browser (POST /api/media)',
        await measureOne(async () => {
          const res = await fetch(`${appUrl}/api/media`, { method: 'POST', body: form, headers: { cookie } });
          if (res.status !== 200) throw new Error(`upload answered ${res.status}`);
          uploadedId = ((await res.json()) as { attachmentId: number }).attachmentId;
        }),
      );
      record(
        'sent to the provider (chat.send: multipart upload, then send by id)',
        await measureOne(async () => {
          const res = await fetch(`${appUrl}/trpc/chat.send`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', cookie },
            body: JSON.stringify({ json: { clientId, attachmentId: uploadedId } }),
          });
          if (res.status !== 200) throw new Error(`send answered ${res.status}: ${await res.text()}`);
        }),
      );
    }
    const [small, big] = sizes as [number, number];
    for (const [name, [atSmall, atBig]] of Object.entries(growth)) {
      tools.report({
        part: 'media',
        name: `${name}: peak RSS growth at ${big} MB (at ${small} MB: ${atSmall!.growth.toFixed(0)} MB; ${(big / atBig!.seconds).toFixed(0)} MB/s)`,
        value: atBig!.growth,
        unit: 'MB',
        ceiling: big,
        ceilingName: 'file size',
        ratio: atBig!.growth / big,
        target: '≤ 0.5 (never holds half the file)',
        pass: atBig!.growth <= big / 2,
      });
    }
  } finally {
    await app.stop();
    await sim.close();
  }
}
