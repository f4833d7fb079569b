import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { deliverMedia, downloadedFileOf, downloadsOf as downloadsOfFile } from '../support/media-deliveries';

// server/media/README.md "Files": why a try ends, said in the thread: a download slower than the floor rate is cut
// and tried again later; a link the download refuses names its cause, with the host.
const CLIENT = '447700900123';
const FLOOR = 64 * 1024;
const MB = 1024 * 1024;

let live: TLiveSetup;
beforeAll(async () => {
  // The floor measured over 1 s after 1 s (the defaults: 20 s after 10 s), and a retry a second later.
  live = await startLiveSetup(
    {},
    {
      mediaQueue: { backoffMs: [1_000], pollMs: 100, leaseMs: 5_000, minBytesPerSecond: FLOOR, floorWindowMs: 1_000, floorGraceMs: 1_000 },
    },
  );
  await createClient({ name: 'Amelia Hart', phone: `+${CLIENT}` });
}, 60_000);
afterAll(() => live?.stop());

const deliver = (chatMsgId: string, mediaId: string, type: 'document' | 'image' = 'document') =>
  deliverMedia(live.server.url, CLIENT, chatMsgId, mediaId, type);
const fileOf = (chatMsgId: string) => downloadedFileOf(live.server.databaseUrl, chatMsgId);
const downloadsOf = (mediaId: string) => downloadsOfFile(live.sim, mediaId);
/** The reason the file's first try left, as the thread shows it. */
const firstReason = async (chatMsgId: string, reason: string) =>
  vi.waitFor(async () => expect(await fileOf(chatMsgId)).toMatchObject({ attempts: 1, error: reason }), { timeout: 10_000, interval: 50 });

describe('a link the download refuses names the cause', () => {
  it.each([
    ['file:///etc/passwd', "The provider's link to this file is not http(s) (file:); it was not followed."],
    ['ftp://evil.example/letter.pdf', "The provider's link to this file is not http(s) (ftp: on evil.example); it was not followed."],
    ['//evil.example/letter.pdf', "The provider's answer about this file could not be used (no media url in the answer)."],
  ])('a media answer linking to %s', async (link, reason) => {
    const media = await live.sim.addMedia({ bytes: Buffer.from('%PDF'), mimeType: 'application/pdf', link });
    await deliver(`wamid.link-${media.id}`, media.id);
    await firstReason(`wamid.link-${media.id}`, reason);
    expect(downloadsOf(media.id)).toBe(0);
  });

  it('a download redirected to another host says which, and that it was not followed', async () => {
    const media = await live.sim.addMedia({
      bytes: Buffer.from('%PDF'),
      mimeType: 'application/pdf',
      redirectTo: 'https://evil.example/collect',
    });
    await deliver('wamid.redirected', media.id);
    await firstReason(
      'wamid.redirected',
      "The provider's link to this file points to another host (evil.example) through a redirect (HTTP 302), which is not followed: the key goes to the provider only.",
    );
  });
});

describe('a trickling provider', () => {
  it('a download slower than the floor rate is cut and tried again later: stored once the provider is quick again', async () => {
    // 2 MB at 40 KB/s: 50 s at that pace, under the 64 KB/s floor; the second download comes at full speed.
    const media = await live.sim.addMedia({ size: 2 * MB, mimeType: 'application/pdf', bytesPerSecond: 40 * 1024, slowDownloads: 1 });
    await deliver('wamid.below-floor', media.id);
    await vi.waitFor(
      async () =>
        expect(await fileOf('wamid.below-floor')).toMatchObject({
          state: 'pending',
          attempts: 1,
          error: 'The provider sent the file too slowly: under 64 KB/s for 1 s.',
          waiting: true,
        }),
      { timeout: 10_000, interval: 50 },
    );
    await vi.waitFor(async () => expect((await fileOf('wamid.below-floor')).state).toBe('stored'), { timeout: 10_000, interval: 50 });
    expect(await fileOf('wamid.below-floor')).toMatchObject({ attempts: 2, error: null, sha256: media.sha256Hex });
    expect(downloadsOf(media.id)).toBe(2);
  }, 30_000);
});
