import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { startAppProcess, type TAppProcess } from '../support/app-process';
import { SIM_API_KEY } from '../support/live-setup';
import { startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, WEBHOOK_SECRET } from '../support/webhook';

// Separate processes on one database: one is killed mid-download, two others share the queue.
// The in-process server here only owns the database; its own queue is off.
const CLIENT = '447700900123';
const LIVE_ENV = {
  MESSAGING_API_KEY: SIM_API_KEY,
  MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET,
  SESSION_SECRET: 'test-session-secret-0123456789abcdef',
};
let sim: ProviderSimulator;
let db: TTestServer;
const children: TAppProcess[] = [];

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: SIM_API_KEY, webhookSecret: WEBHOOK_SECRET, autoReceipts: false });
  db = await startTestServer({ ...LIVE_ENV, MESSAGING_PROVIDER_URL: sim.url }, undefined, { mediaQueue: { concurrency: 0 } });
  await createClient({ name: 'Amelia Hart', phone: `+${CLIENT}` });
}, 60_000);
afterAll(async () => {
  for (const child of children) await child.stop();
  await db?.stop();
  await sim?.close();
});

const startInstance = async () => {
  const child = await startAppProcess({ env: { ...LIVE_ENV, DATABASE_URL: db.databaseUrl, MESSAGING_PROVIDER_URL: sim.url } });
  children.push(child);
  return child;
};
const deliverFile = (url: string, chatMsgId: string, mediaId: string) =>
  postWebhook(
    url,
    cloudPayload({
      messages: [
        {
          from: CLIENT,
          id: chatMsgId,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'document',
          document: { id: mediaId, mime_type: 'application/pdf', filename: `${chatMsgId}.pdf` },
        },
      ],
    }),
  );
const fileOf = async (chatMsgId: string) =>
  (
    await sql<{ id: number; state: string; attempts: number; sha256: string | null; leased: boolean; chunks: number }>(
      db.databaseUrl,
      `SELECT a.id, a.state, a.attempts, a.sha256, coalesce(a.locked_until > now(), false) AS leased,
              (SELECT count(*)::int FROM attachment_chunks k WHERE k.attachment_id = a.id) AS chunks
       FROM attachments a JOIN communications c ON c.id = a.communication_id WHERE c.metadata->>'chat_msg_id' = $1`,
      [chatMsgId],
    )
  )[0]!;
const downloadsOf = (mediaId: string) =>
  sim.requests.filter((r) => r.path === '/whatsapp_business/attachments/' && new URLSearchParams(r.query).get('mid') === mediaId).length;

it('a download cut off by a crash keeps nothing, stays leased, and is taken up by another instance once the lease has run out', async () => {
  const first = await startInstance();
  sim.configure({ mediaChunkDelayMs: 40 });
  const media = await sim.addMedia({ size: 3 * 1024 * 1024, mimeType: 'application/pdf' }); // 48 pieces: about 2 s
  expect((await deliverFile(first.url, 'wamid.crash', media.id)).json).toMatchObject({ stored: 1 });
  await vi.waitFor(() => expect(downloadsOf(media.id)).toBe(1), { timeout: 10_000, interval: 20 });
  await new Promise((r) => setTimeout(r, 400)); // some bytes written inside the download's transaction
  await first.crash();

  expect(await fileOf('wamid.crash')).toMatchObject({ state: 'pending', attempts: 1, leased: true, chunks: 0, sha256: null });
  sim.configure({ mediaChunkDelayMs: 0 });
  await startInstance();
  await new Promise((r) => setTimeout(r, 1_500));
  expect(await fileOf('wamid.crash')).toMatchObject({ state: 'pending', attempts: 1 }); // still someone's until the lease ends

  // The lease running out (two minutes by default), brought forward.
  await sql(db.databaseUrl, "UPDATE attachments SET locked_until = now() - interval '1 second' WHERE state = 'pending'");
  await vi.waitFor(async () => expect((await fileOf('wamid.crash')).state).toBe('stored'), { timeout: 20_000, interval: 200 });
  expect(await fileOf('wamid.crash')).toMatchObject({ attempts: 2, sha256: media.sha256Hex, chunks: 12 });
}, 120_000);

it('two instances never download one file at once: each of 10 files is fetched exactly once', async () => {
  const [b, c] = children.length >= 2 ? [children[1]!, await startInstance()] : [await startInstance(), await startInstance()];
  sim.configure({ mediaChunkDelayMs: 5 });
  const media = await Promise.all(Array.from({ length: 10 }, () => sim.addMedia({ size: 512 * 1024, mimeType: 'application/pdf' })));
  await Promise.all(media.map((m, i) => deliverFile(i % 2 ? b.url : c.url, `wamid.pair${i}`, m.id)));
  await vi.waitFor(
    async () => {
      for (let i = 0; i < media.length; i++) expect((await fileOf(`wamid.pair${i}`)).state).toBe('stored');
    },
    { timeout: 30_000, interval: 200 },
  );
  for (let i = 0; i < media.length; i++) {
    expect(downloadsOf(media[i]!.id), `file ${i}`).toBe(1);
    expect(await fileOf(`wamid.pair${i}`)).toMatchObject({ attempts: 1, sha256: media[i]!.sha256Hex });
  }
  sim.configure({ mediaChunkDelayMs: 0 });
}, 120_000);
