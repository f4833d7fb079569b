import { describe, expect, it } from 'vitest';
import { snoozePresets } from '../../client/src/features/ownership/snooze-presets';

// The snooze presets mean what they say on any day (server/ownership/README.md "Ownership"): next
// week is the coming Monday at 9:00 — but never tomorrow's moment (on a Sunday, the Monday after) —
// and no two presets are the same moment.

// Monday 23 November 2026 to Sunday 29 November 2026, each at 16:30 local time.
const WEEK = [23, 24, 25, 26, 27, 28, 29].map((date) => new Date(2026, 10, date, 16, 30));
const NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

describe('snooze presets on every weekday', () => {
  it.each(WEEK.map((now, i) => [NAMES[i]!, now] as const))('%s: tomorrow 9:00, and the Monday after tomorrow at 9:00', (day, now) => {
    const [later, tomorrow, nextWeek] = snoozePresets(now);
    expect(later!.until).toEqual(new Date(2026, 10, now.getDate(), 19, 30));
    expect(tomorrow!.until).toEqual(new Date(2026, 10, now.getDate() + 1, 9, 0));
    // Monday 30 November; from Sunday 29th (tomorrow is that Monday), Monday 7 December.
    expect(nextWeek!.until).toEqual(day === 'Sunday' ? new Date(2026, 11, 7, 9, 0) : new Date(2026, 10, 30, 9, 0));
  });

  it.each(WEEK.map((now, i) => [NAMES[i]!, now] as const))('%s: no two presets are the same moment', (_day, now) => {
    const times = snoozePresets(now).map((p) => p.until.getTime());
    expect(new Set(times).size).toBe(times.length);
  });

  it('late in the evening, three hours on is called what it is, not later today', () => {
    expect(snoozePresets(new Date(2026, 10, 25, 20, 59))[0]).toMatchObject({ label: 'Later today' });
    expect(snoozePresets(new Date(2026, 10, 25, 23, 28))[0]).toEqual({
      key: 'later',
      label: 'In 3 hours',
      until: new Date(2026, 10, 26, 2, 28),
    });
  });

  it('on a Sunday just after midnight, next week is the Monday after tomorrow, not tomorrow', () => {
    const [, tomorrow, nextWeek] = snoozePresets(new Date(2026, 10, 29, 0, 5));
    expect(tomorrow!.until).toEqual(new Date(2026, 10, 30, 9, 0));
    expect(nextWeek!.until).toEqual(new Date(2026, 11, 7, 9, 0));
  });
});
