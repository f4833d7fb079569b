import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sendLaterPresets } from '../../client/src/features/scheduling/send-later-presets';
import { nextReadIn, type TScheduledSend } from '../../client/src/features/scheduling/scheduled-send';
import { formatSoon, fromZonedInputValue, instantOf, toZonedInputValue, wallTimeIn, zoneName } from '../../shared/zoned-time';

// "Send later" times are chosen on the firm's clock (server/messaging/README.md "Scheduled sends"), whatever zone the
// browser is in: the arithmetic from a wall-clock time in a named zone to an instant and back.

const ZONES = ['Europe/London', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham', 'UTC', 'America/Sao_Paulo'];

describe('wall-clock times in a named zone', () => {
  it('reads a wall time in the zone as the instant it names, across both sides of a change', () => {
    // London: GMT in winter, BST (UTC+1) in summer.
    expect(instantOf({ year: 2026, month: 12, day: 2, hour: 9, minute: 0 }, 'Europe/London').toISOString()).toBe(
      '2026-12-02T09:00:00.000Z',
    );
    expect(instantOf({ year: 2026, month: 7, day: 1, hour: 9, minute: 0 }, 'Europe/London').toISOString()).toBe('2026-07-01T08:00:00.000Z');
    expect(instantOf({ year: 2026, month: 12, day: 2, hour: 9, minute: 0 }, 'America/New_York').toISOString()).toBe(
      '2026-12-02T14:00:00.000Z',
    );
    expect(instantOf({ year: 2026, month: 12, day: 2, hour: 9, minute: 0 }, 'Asia/Kolkata').toISOString()).toBe('2026-12-02T03:30:00.000Z');
  });

  it('takes a skipped time (spring forward) as the same time after the change, and a doubled one as the first', () => {
    // London, 29 March 2026: 01:00 GMT becomes 02:00 BST, so 01:30 is never shown.
    expect(instantOf({ year: 2026, month: 3, day: 29, hour: 1, minute: 30 }, 'Europe/London').toISOString()).toBe(
      '2026-03-29T01:30:00.000Z',
    );
    // London, 25 October 2026: 02:00 BST becomes 01:00 GMT, so 01:30 is shown twice; the first is BST.
    expect(instantOf({ year: 2026, month: 10, day: 25, hour: 1, minute: 30 }, 'Europe/London').toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
  });

  it('round-trips every minute between an input value and the instant, in every zone', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) }), fc.constantFrom(...ZONES), (epochMs, zone) => {
        const minute = new Date(Math.floor(epochMs / 60_000) * 60_000);
        const value = toZonedInputValue(minute, zone);
        const back = fromZonedInputValue(value, zone)!;
        // The same wall time (a doubled hour's second showing comes back as its first: the same clock reading).
        expect(toZonedInputValue(back, zone)).toBe(value);
        expect(Math.abs(back.getTime() - minute.getTime()) % 1_800_000).toBe(0);
      }),
    );
  });

  it('reads seconds when given, and refuses what is not a date and time', () => {
    expect(fromZonedInputValue('2026-12-02T09:00:05', 'Europe/London')?.toISOString()).toBe('2026-12-02T09:00:05.000Z');
    expect(fromZonedInputValue('2026-02-30T09:00', 'Europe/London')).toBeNull();
    expect(fromZonedInputValue('2026-12-02', 'Europe/London')).toBeNull();
    expect(fromZonedInputValue('', 'Europe/London')).toBeNull();
  });

  it('names a zone as a person would beside a time', () => {
    expect(zoneName('Europe/London')).toBe('UK time');
    expect(zoneName('America/New_York')).toBe('New York time');
    expect(zoneName('UTC')).toBe('UTC');
    expect(zoneName('Etc/GMT+5')).toBe('Etc/GMT+5');
  });

  it('says a moment ahead as shortly as it stays clear, on the zone’s clock', () => {
    const now = new Date('2026-12-01T23:30:00Z'); // Tuesday 23:30 in London, already Wednesday 00:30 in Paris
    expect(formatSoon(new Date('2026-12-01T23:45:00Z'), 'Europe/London', now)).toBe('23:45');
    expect(formatSoon(new Date('2026-12-02T09:00:00Z'), 'Europe/London', now)).toBe('tomorrow 09:00');
    expect(formatSoon(new Date('2026-12-02T08:00:00Z'), 'Europe/Paris', now)).toBe('09:00');
    expect(formatSoon(new Date('2026-12-04T09:00:00Z'), 'Europe/London', now)).toMatch(/^\S+ 09:00$/);
  });
});

describe('the Send later presets', () => {
  const at = (iso: string) => new Date(iso);
  const wall = (date: Date, zone: string) => {
    const w = wallTimeIn(date, zone);
    return `${w.weekday} ${w.hour}:${String(w.minute).padStart(2, '0')}`;
  };

  it('are an hour on, tomorrow at 9:00 and the coming Monday at 9:00, on the firm’s clock', () => {
    // Friday 2026-11-27, 17:10 in London.
    const presets = sendLaterPresets(at('2026-11-27T17:10:00Z'), 'Europe/London');
    expect(presets.map((p) => [p.key, p.at.toISOString()])).toEqual([
      ['hour', '2026-11-27T18:10:00.000Z'],
      ['tomorrow', '2026-11-28T09:00:00.000Z'],
      ['monday', '2026-11-30T09:00:00.000Z'],
    ]);
    // The same moment in New York's firm: still Friday there, 12:10.
    const ny = sendLaterPresets(at('2026-11-27T17:10:00Z'), 'America/New_York');
    expect(ny.map((p) => wall(p.at, 'America/New_York'))).toEqual(['5 13:10', '6 9:00', '1 9:00']);
  });

  it('use the firm’s date, not the browser’s, when the two differ', () => {
    // 23:30 UTC on Sunday is already Monday 10:30 in Sydney: tomorrow there is Tuesday.
    const sydney = sendLaterPresets(at('2026-11-29T23:30:00Z'), 'Australia/Sydney');
    expect(sydney.map((p) => wall(p.at, 'Australia/Sydney'))).toEqual(['1 11:30', '2 9:00', '1 9:00']);
    expect(sydney[2]!.at.getTime() - sydney[1]!.at.getTime()).toBe(6 * 86_400_000);
  });

  it('say Monday once on a Sunday (it is tomorrow), and round the hour up to the minute', () => {
    const sunday = sendLaterPresets(at('2026-11-29T15:00:30Z'), 'Europe/London');
    expect(sunday.map((p) => p.key)).toEqual(['hour', 'tomorrow']);
    expect(sunday[0]!.at.toISOString()).toBe('2026-11-29T16:01:00.000Z');
  });
});

describe('when a list of scheduled sends is read again', () => {
  const row = (sendAt: number, state: TScheduledSend['state'] = 'scheduled') => ({ sendAt: new Date(sendAt), state }) as TScheduledSend;

  it('just after the next one is due, then every 2 s until it is reported gone, less often once it is late', () => {
    const now = 1_000_000_000;
    expect(nextReadIn([], now)).toBe(false);
    expect(nextReadIn([row(now - 5_000, 'not_sent')], now)).toBe(false);
    expect(nextReadIn([row(now + 5_000), row(now + 60_000)], now)).toBe(6_000);
    expect(nextReadIn([row(now + 30 * 86_400_000)], now)).toBe(3_600_000);
    expect(nextReadIn([row(now - 1_000)], now)).toBe(2_000);
    expect(nextReadIn([row(now - 5 * 60_000)], now)).toBe(30_000);
  });
});
