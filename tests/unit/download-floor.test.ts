import { describe, expect, it } from 'vitest';
import { DownloadFloor } from '../../server/media/download-floor';

// The floor rate of a download (server/media/README.md "Files"): measured over a sliding window once the grace
// period is over, on a clock the test moves.
const KB = 1024;

function floorAt(start = 0) {
  const clock = { now: start };
  const floor = new DownloadFloor({ bytesPerSecond: 64 * KB, windowMs: 2_000, graceMs: 1_000 }, () => clock.now);
  floor.start(false);
  return { clock, floor };
}

describe('the floor rate of a download', () => {
  it('is not judged during the grace period, even with nothing arrived', () => {
    const { clock, floor } = floorAt();
    clock.now = 999;
    expect(floor.check()).toBe(false);
    expect(floor.signal.aborted).toBe(false);
  });

  it('cuts a download bringing fewer bytes a second than the floor once the grace period is over', () => {
    const { clock, floor } = floorAt();
    for (let t = 0; t < 1_000; t += 100) {
      clock.now = t;
      floor.add(6 * KB); // 60 KB/s
    }
    clock.now = 1_000;
    expect(floor.check()).toBe(true);
    expect(floor.signal.aborted).toBe(true);
  });

  it('keeps a download just above the floor going, however long it takes', () => {
    const { clock, floor } = floorAt();
    for (let t = 0; t <= 60_000; t += 100) {
      clock.now = t;
      floor.add(7 * KB); // 70 KB/s
      if (t >= 1_000) expect(floor.check()).toBe(false);
    }
    expect(floor.signal.aborted).toBe(false);
  });

  it('judges the last window, not the average: a fast start does not pay for a stall later', () => {
    const { clock, floor } = floorAt();
    floor.add(10 * 1024 * KB); // 10 MB at once: the average stays far above the floor for minutes
    for (let t = 100; t < 2_000; t += 100) {
      clock.now = t;
      expect(floor.check()).toBe(false);
    }
    clock.now = 2_000; // the burst has left the 2 s window; nothing came since
    expect(floor.check()).toBe(true);
  });
});
