import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/core/config';
import { formatFirmTime } from '../../server/export/firm-time';

// Exports write every time on the firm's clock with UTC beside it (server/export/README.md "Evidence exports").

describe("an export's times", () => {
  it('are the firm’s wall-clock time and zone, then UTC in brackets; the UTC date too when it is another day there', () => {
    expect(formatFirmTime('2026-11-26T14:03:22.000Z', 'Europe/London')).toBe('26 Nov 2026 14:03:22 GMT (14:03:22 UTC)');
    expect(formatFirmTime('2026-07-01T08:00:00.000Z', 'Europe/London')).toBe('1 Jul 2026 09:00:00 BST (08:00:00 UTC)');
    expect(formatFirmTime('2026-11-26T14:03:22.000Z', 'Australia/Sydney')).toBe('27 Nov 2026 01:03:22 GMT+11 (26 Nov 2026 14:03:22 UTC)');
    expect(formatFirmTime('2026-11-26T02:00:00.000Z', 'America/New_York')).toBe('25 Nov 2026 21:00:00 GMT-5 (26 Nov 2026 02:00:00 UTC)');
    expect(formatFirmTime('2026-11-26T14:03:22.000Z', 'Asia/Kathmandu')).toBe('26 Nov 2026 19:48:22 GMT+5:45 (14:03:22 UTC)');
    expect(formatFirmTime('2026-11-26T14:03:22.999Z', 'UTC')).toBe('26 Nov 2026 14:03:22 UTC');
    expect(formatFirmTime(null, 'Europe/London')).toBe('—');
  });

  it('change zone name and offset at the very second the clocks change', () => {
    // London springs forward at 01:00 UTC on the last Sunday of March 2026.
    expect(formatFirmTime('2026-03-29T00:59:59.000Z', 'Europe/London')).toBe('29 Mar 2026 00:59:59 GMT (00:59:59 UTC)');
    expect(formatFirmTime('2026-03-29T01:00:00.000Z', 'Europe/London')).toBe('29 Mar 2026 02:00:00 BST (01:00:00 UTC)');
    // Lord Howe Island moves by half an hour, and springs forward at half past an hour UTC (02:00 at +10:30).
    expect(formatFirmTime('2026-10-03T15:29:59.000Z', 'Australia/Lord_Howe')).toBe(
      '4 Oct 2026 01:59:59 GMT+10:30 (3 Oct 2026 15:29:59 UTC)',
    );
    expect(formatFirmTime('2026-10-03T15:30:00.000Z', 'Australia/Lord_Howe')).toBe('4 Oct 2026 02:30:00 GMT+11 (3 Oct 2026 15:30:00 UTC)');
    expect(formatFirmTime('2026-04-04T14:59:59.000Z', 'Australia/Lord_Howe')).toBe('5 Apr 2026 01:59:59 GMT+11 (4 Apr 2026 14:59:59 UTC)');
    expect(formatFirmTime('2026-04-04T15:00:00.000Z', 'Australia/Lord_Howe')).toBe(
      '5 Apr 2026 01:30:00 GMT+10:30 (4 Apr 2026 15:00:00 UTC)',
    );
  });

  it('agree with Intl for any instant in any of these zones (the offsets are cached by the quarter hour)', () => {
    const zones = [
      'Europe/London',
      'America/New_York',
      'Asia/Kolkata',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
      'America/Sao_Paulo',
      'Asia/Kathmandu',
    ];
    const intl = new Map(
      zones.map((zone) => [
        zone,
        new Intl.DateTimeFormat('en-GB', {
          timeZone: zone,
          day: 'numeric',
          month: 'short',
          year: 'numeric',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          hourCycle: 'h23',
          timeZoneName: 'short',
        }),
      ]),
    );
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }), (zone, ms) => {
        const parts = Object.fromEntries(
          intl
            .get(zone)!
            .formatToParts(ms)
            .map((part) => [part.type, part.value]),
        );
        const expected = `${parts.day} ${parts.month} ${parts.year} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
        expect(formatFirmTime(new Date(ms).toISOString(), zone).split(' (')[0]).toBe(expected.replace('Sept', 'Sep'));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('FIRM_TIME_ZONE', () => {
  it('defaults to Europe/London, takes a zone this server knows, and refuses anything else naming the variable', () => {
    expect(loadConfig({}).firmTimeZone).toBe('Europe/London');
    expect(loadConfig({ FIRM_TIME_ZONE: ' America/New_York ' }).firmTimeZone).toBe('America/New_York');
    expect(() => loadConfig({ FIRM_TIME_ZONE: 'Mars/Olympus_Mons' })).toThrow(ConfigError);
    expect(() => loadConfig({ FIRM_TIME_ZONE: 'Mars/Olympus_Mons' })).toThrow(/FIRM_TIME_ZONE: must be a time zone such as Europe\/London/);
  });
});
