import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import {
  deliverMedia,
  downloadedFileOf,
  downloadsOf as downloadsOfFile,
  firstDownloadOf as firstDownloadOfFile,
} from '../support/media-deliveries';

// server/media/README.md "Files": a small file never waits behind slow ones (the express lanes). The floor rate and
// the reasons a try ends are in media-download-reasons.test.ts.
const CLIENT = '447700900123';
const FLOOR = 64 * 1024;
const MB = 1024 * 1024;

let live: TLiveSetup;
beforeAll(async () => {
  // The floor measured over 1 s after 1 s (the defaults: 20 s after 10 s): the downloads here trickle just above it.
  live = await startLiveSetup(
    {},
    {
      mediaQueue: { pollMs: 100, leaseMs: 5_000, minBytesPerSecond: FLOOR, floorWindowMs: 1_000, floorGraceMs: 1_000 },
    },
  );
  await createClient({ name: 'Amelia Hart', phone: `+${CLIENT}` });
}, 60_000);
afterAll(() => live?.stop());

const deliver = (chatMsgId: string, mediaId: string, type: 'document' | 'image' = 'document') =>
  deliverMedia(live.server.url, CLIENT, chatMsgId, mediaId, type);
const fileOf = (chatMsgId: string) => downloadedFileOf(live.server.databaseUrl, chatMsgId);
const downloadsOf = (mediaId: string) => downloadsOfFile(live.sim, mediaId);
const firstDownloadOf = (mediaId: string) => firstDownloadOfFile(live.sim, mediaId);

describe('slow downloads', () => {
  it('a 30 KB photo arriving while trickling downloads hold the workers is stored within 5 s', async () => {
    // Four 1 MB documents at 80 KB/s, just above the floor: each holds a worker for about 13 s.
    const slow = await Promise.all(
      [1, 2, 3, 4].map(() => live.sim.addMedia({ size: MB, mimeType: 'application/pdf', bytesPerSecond: 80 * 1024 })),
    );
    for (const [i, media] of slow.entries()) await deliver(`wamid.trickle${i}`, media.id);
    // Both workers of a queue without lanes (and both ordinary lanes) hold a trickling download.
    await vi.waitFor(() => expect(slow.filter((m) => downloadsOf(m.id) > 0).length).toBeGreaterThanOrEqual(2), {
      timeout: 10_000,
      interval: 20,
    });
    const photo = await live.sim.addMedia({ size: 30 * 1024, mimeType: 'image/jpeg' });
    expect((await deliver('wamid.photo', photo.id, 'image')).json).toMatchObject({ stored: 1 });
    // The contract's bound: stored within 5 s of arriving.
    await vi.waitFor(async () => expect((await fileOf('wamid.photo')).state).toBe('stored'), { timeout: 5_000, interval: 25 });
    expect(await fileOf('wamid.photo')).toMatchObject({ attempts: 1, sha256: photo.sha256Hex });
    // Every lane held a trickling download: all four were under way before the photo's began, none done.
    for (const [i, media] of slow.entries()) {
      expect(firstDownloadOf(media.id)).toBeGreaterThanOrEqual(0);
      expect(firstDownloadOf(media.id)).toBeLessThan(firstDownloadOf(photo.id));
      expect((await fileOf(`wamid.trickle${i}`)).state).toBe('pending');
    }
  }, 30_000);
});
