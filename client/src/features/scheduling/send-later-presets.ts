import { addDays, instantOf, wallTimeIn } from '../../../../shared/zoned-time';

export type TSendLaterPreset = { key: 'hour' | 'tomorrow' | 'monday'; label: string; at: Date };

const MORNING = { hour: 9, minute: 0, second: 0 };
const MONDAY = 1;

/**
 * The "Send later" menu's presets from `now`, on the firm's clock (`timeZone`): an hour on, tomorrow
 * at 9:00, and the coming Monday at 9:00 — the next working week's first morning, for a message
 * written late on a Friday. On a Sunday the Monday is tomorrow, said once.
 */
export function sendLaterPresets(now: Date, timeZone: string): TSendLaterPreset[] {
  const today = wallTimeIn(now, timeZone);
  const tomorrow = instantOf({ ...addDays(today, 1), ...MORNING }, timeZone);
  const daysToMonday = (7 - today.weekday + MONDAY) % 7 || 7;
  const monday = instantOf({ ...addDays(today, daysToMonday), ...MORNING }, timeZone);
  const presets: TSendLaterPreset[] = [
    // To the minute: a time with seconds would show as one minute and go at another.
    { key: 'hour', label: 'In 1 hour', at: new Date(Math.ceil((now.getTime() + 3_600_000) / 60_000) * 60_000) },
    { key: 'tomorrow', label: 'Tomorrow 9:00', at: tomorrow },
  ];
  if (daysToMonday > 1) presets.push({ key: 'monday', label: 'Monday 9:00', at: monday });
  return presets;
}

/** The furthest ahead a send may be scheduled: a year (the server refuses later ones). */
export function latestSendAt(now: Date): Date {
  return new Date(now.getTime() + 365 * 86_400_000);
}
