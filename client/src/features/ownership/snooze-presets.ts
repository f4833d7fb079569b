/** A conversation's state: open (in the inbox), done, or snoozed until a time (then open again). */
export type TThreadState = 'open' | 'done' | 'snoozed';

export type TSnoozePreset = { key: 'later' | 'tomorrow' | 'next-week'; label: string; until: Date };

const LATER_TODAY_HOURS = 3;
const MORNING_HOUR = 9;

/**
 * The snooze menu's presets, from `now`, in this browser's time zone: three hours on, tomorrow at
 * 9:00, and next week (the coming Monday at 9:00; on a Monday, the one after; on a Sunday, when
 * tomorrow is Monday, the one after too: eight days on, never the same moment as tomorrow's).
 */
export function snoozePresets(now = new Date()): TSnoozePreset[] {
  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, MORNING_HOUR);
  const daysToMonday = 8 - now.getDay(); // getDay: 0 Sunday … 6 Saturday
  const monday = new Date(now.getFullYear(), now.getMonth(), now.getDate() + daysToMonday, MORNING_HOUR);
  const later = new Date(now.getTime() + LATER_TODAY_HOURS * 3_600_000);
  return [
    // Late in the evening three hours on is tomorrow: said as what it is, not "later today".
    { key: 'later', label: later.getDate() === now.getDate() ? 'Later today' : `In ${LATER_TODAY_HOURS} hours`, until: later },
    { key: 'tomorrow', label: 'Tomorrow 9:00', until: tomorrow },
    { key: 'next-week', label: 'Next week', until: monday },
  ];
}

/** A `datetime-local` input's value for `date` (local time, to the minute). */
export function toLocalInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The furthest a snooze may end: a year from `now` (the server refuses later ones). */
export function latestSnooze(now = new Date()): Date {
  return new Date(now.getFullYear() + 1, now.getMonth(), now.getDate(), now.getHours(), now.getMinutes());
}
