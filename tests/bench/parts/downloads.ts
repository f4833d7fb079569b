import { createHmac } from 'node:crypto';
import pg from 'pg';
import { migrateOnly, startBenchServer } from '../app-under-test';
import { bySize, createDatabase, percentile, SECRET, type TBenchTools } from '../bench-support';

// Part 13, downloads: a small file never waits behind slow ones. The app process in live mode
// against the provider simulator, its download queue as it runs in production (the default lanes,
// floor rate and budget): four 1 MB documents trickle in just above the floor rate, holding the
// download lanes, while 30 KB photos arrive one after another; each photo's time from its webhook
// to `stored` is measured, beside the same photo's time with the queue idle.

const MB = 1024 * 1024;
/** Just above the default floor rate (64 KB/s): each document holds a lane for about 13 s. */
const TRICKLE_BYTES_PER_SECOND = 80 * 1024;
const TRICKLERS = 4;
const TARGET_MS = 5_000;

export async function benchDownloads(adminUrl: string, tools: TBenchTools) {
  const photos = bySize(tools.size, { full: 8, quick: 3, smoke: 2 });
  console.log(
    `\n== 13. Downloads: ${photos} photos of 30 KB arriving while ${TRICKLERS} documents of 1 MB trickle in at ${TRICKLE_BYTES_PER_SECOND / 1024} KB/s (just above the floor rate)`,
  );
  const { startProviderSimulator } = await import('../../../server/dev/provider-sim/provider-simulator');
  const key = 'bench-provider-key';
  const sim = await startProviderSimulator({ apiKey: key, webhookSecret: SECRET, autoReceipts: false });
  const url = await createDatabase(adminUrl, 'bench_downloads');
  await migrateOnly(url);
  const { app, appUrl } = await startBenchServer(url, { MESSAGING_API_KEY: key, MESSAGING_PROVIDER_URL: sim.url }).catch(
    async (error: unknown) => {
      await sim.close();
      throw error;
    },
  );
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  let sequence = 0;
  /** Posts a signed inbound file; resolves with its chat id once the webhook has answered. */
  const deliver = async (mediaId: string, type: 'image' | 'document') => {
    const id = `wamid.bench-download-${++sequence}`;
    const file =
      type === 'image' ? { id: mediaId, mime_type: 'image/jpeg' } : { id: mediaId, mime_type: 'application/pdf', filename: 'a.pdf' };
    const message = { from: '447700900123', id, timestamp: String(Math.floor(Date.now() / 1000)), type, [type]: file };
    const body = JSON.stringify({ entry: [{ changes: [{ field: 'messages', value: { messages: [message] } }] }] });
    const res = await fetch(`${appUrl}/api/webhooks/chat`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-service-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      },
    });
    if (res.status !== 200) throw new Error(`the webhook answered ${res.status}`);
    return id;
  };
  const stateOf = async (chatMsgIds: string[]) =>
    (
      await db.query<{ state: string }>(
        `SELECT a.state FROM attachments a JOIN communications c ON c.id = a.communication_id WHERE c.metadata->>'chat_msg_id' = ANY($1)`,
        [chatMsgIds],
      )
    ).rows.map((r) => r.state);
  /** A 30 KB photo from its webhook to `stored`, in ms (the table read every 10 ms). */
  const photoStored = async () => {
    const photo = await sim.addMedia({ size: 30 * 1024, mimeType: 'image/jpeg' });
    const started = performance.now();
    const id = await deliver(photo.id, 'image');
    for (;;) {
      const [state] = await stateOf([id]);
      if (state === 'stored') return performance.now() - started;
      if (state === 'failed') throw new Error('the benchmark photo failed');
      if (performance.now() - started > 60_000) throw new Error('the benchmark photo was not stored within 60 s');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  try {
    const idle = await photoStored();
    const slow = await Promise.all(
      Array.from({ length: TRICKLERS }, () =>
        sim.addMedia({ size: MB, mimeType: 'application/pdf', bytesPerSecond: TRICKLE_BYTES_PER_SECOND }),
      ),
    );
    const slowIds: string[] = [];
    for (const media of slow) slowIds.push(await deliver(media.id, 'document'));
    // Every download lane holds one: as many trickling downloads under way as there are documents.
    const downloading = () =>
      slow.filter((m) => sim.requests.some((r) => r.path === '/whatsapp_business/attachments/' && r.query.includes(`mid=${m.id}`))).length;
    const waitFrom = performance.now();
    while (downloading() < TRICKLERS && performance.now() - waitFrom < 10_000) await new Promise((r) => setTimeout(r, 20));
    const held = downloading();
    const times: number[] = [];
    for (let i = 0; i < photos; i++) times.push(await photoStored());
    const stillTrickling = (await stateOf(slowIds)).filter((s) => s === 'pending').length;
    const sorted = [...times].sort((a, b) => a - b);
    const slowest = sorted.at(-1)!;
    tools.report({
      part: 'downloads',
      name: `30 KB photo, webhook to stored, while ${held} of ${TRICKLERS} trickling downloads held lanes: slowest of ${photos} (first ${times[0]!.toFixed(0)} ms, p50 ${percentile(sorted, 50).toFixed(0)} ms; idle queue ${idle.toFixed(0)} ms)`,
      value: slowest,
      unit: 'ms',
      ceiling: TARGET_MS,
      ceilingName: 'the bound',
      ratio: slowest / TARGET_MS,
      target: '≤ 5000 ms',
      pass: slowest <= TARGET_MS,
    });
    tools.report({
      part: 'downloads',
      name: 'trickling documents still not stored when the last photo was (the photos did not wait for them)',
      value: stillTrickling,
      unit: `of ${TRICKLERS}`,
    });
  } finally {
    await db.end();
    // The simulator first: the trickles end at once, and the app stops without waiting on them.
    await sim.close();
    await app.stop();
  }
}
