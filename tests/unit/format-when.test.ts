import { describe, expect, it } from 'vitest';
import { formatDateTime, formatWhen } from '../../client/src/lib/format';

describe('formatWhen: a list\'s short "when"', () => {
  const now = new Date(2026, 10, 23, 15, 0); // Monday 23 November 2026, 15:00 local
  it('today: the time only', () => {
    const at = new Date(2026, 10, 23, 9, 5);
    expect(formatWhen(at, now)).toBe(new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }).format(at));
  });
  it('within the last week: the weekday', () => {
    expect(formatWhen(new Date(2026, 10, 20, 9, 5), now)).toBe(
      new Intl.DateTimeFormat(undefined, { weekday: 'short' }).format(new Date(2026, 10, 20)),
    );
  });
  it('earlier this year: day and month, no time', () => {
    const at = new Date(2026, 2, 4, 9, 5);
    expect(formatWhen(at, now)).toBe(new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' }).format(at));
  });
  it('another year: a short date', () => {
    const at = new Date(2025, 10, 24, 9, 5);
    expect(formatWhen(at, now)).toBe(new Intl.DateTimeFormat(undefined, { dateStyle: 'short' }).format(at));
  });
  it('every form is shorter than the full date and time it replaces', () => {
    for (const at of [new Date(2026, 10, 20, 9, 5), new Date(2026, 2, 4, 9, 5), new Date(2025, 10, 24, 9, 5)]) {
      expect(formatWhen(at, now).length).toBeLessThan(formatDateTime(at).length);
    }
  });
});
