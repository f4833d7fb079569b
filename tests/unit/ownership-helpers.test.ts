import { describe, expect, it } from 'vitest';
import { matchPeople, mentionedIn, mentionTokenAt } from '../../client/src/features/ownership/mention-token';
import { snoozePresets, toLocalInputValue } from '../../client/src/features/ownership/snooze-presets';

// The snooze menu's times and the note composer's @ completion (server/ownership/README.md "Ownership").

describe('snooze presets', () => {
  it('are three hours on, tomorrow at 9:00 and the coming Monday at 9:00, in local time', () => {
    const wednesday = new Date(2026, 10, 25, 16, 30); // Wed 25 Nov 2026, 16:30
    const [later, tomorrow, nextWeek] = snoozePresets(wednesday);
    expect(later!.until).toEqual(new Date(2026, 10, 25, 19, 30));
    expect(tomorrow!.until).toEqual(new Date(2026, 10, 26, 9, 0));
    expect(nextWeek!.until).toEqual(new Date(2026, 10, 30, 9, 0));
  });

  it('on a Monday, next week is the Monday after; across a month end the date rolls over', () => {
    const monday = new Date(2026, 10, 30, 8, 0);
    const [, tomorrow, nextWeek] = snoozePresets(monday);
    expect(tomorrow!.until).toEqual(new Date(2026, 11, 1, 9, 0));
    expect(nextWeek!.until).toEqual(new Date(2026, 11, 7, 9, 0));
  });

  it('writes a date as a datetime-local value, to the minute', () => {
    expect(toLocalInputValue(new Date(2026, 0, 5, 7, 3, 59))).toBe('2026-01-05T07:03');
  });
});

describe('mentions', () => {
  const people = [
    { id: 1, name: 'Dana Lee' },
    { id: 2, name: 'Dee Director' },
    { id: 3, name: 'Sam Staff' },
  ];

  it('finds the "@name" being typed at the caret, not an e-mail address or a finished line', () => {
    expect(mentionTokenAt('Ask @De', 7)).toEqual({ start: 4, query: 'De' });
    expect(mentionTokenAt('Ask @Dee Di', 11)).toEqual({ start: 4, query: 'Dee Di' });
    expect(mentionTokenAt('write to dee@firm.test', 22)).toBeNull();
    expect(mentionTokenAt('Ask @Dee\nthen', 13)).toBeNull();
    expect(mentionTokenAt('@ Dee', 5)).toBeNull();
  });

  it('matches a name or any of its words by its start, and a query with a space by the whole name', () => {
    expect(matchPeople(people, 'd').map((p) => p.id)).toEqual([1, 2]);
    expect(matchPeople(people, 'lee').map((p) => p.id)).toEqual([1]);
    expect(matchPeople(people, 'dee d').map((p) => p.id)).toEqual([2]);
    expect(matchPeople(people, 'staff x')).toEqual([]);
  });

  it('keeps only the picked people whose "@Full Name" is still in the text', () => {
    expect(mentionedIn('Thanks @Dana Lee and @Sam Staff', people)).toEqual([1, 3]);
    expect(mentionedIn('Thanks @Dana', people)).toEqual([]);
  });
});
