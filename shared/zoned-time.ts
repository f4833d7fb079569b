// Wall-clock times in a named time zone (the firm's, server/messaging/README.md "Scheduled sends"), with nothing but
// `Intl.DateTimeFormat`: no date library is in package.json, and the browser and Node carry the
// zone database. A person picks "Tue 2 Dec, 09:00" in the firm's zone, whatever zone the browser is in.

/** A wall-clock moment in some zone; `month` 1–12. */
export type TWallTime = { year: number; month: number; day: number; hour: number; minute: number; second?: number };

const partsFormats = new Map<string, Intl.DateTimeFormat>();

function partsFormatOf(timeZone: string): Intl.DateTimeFormat {
  let format = partsFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    partsFormats.set(timeZone, format);
  }
  return format;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** What a clock in `timeZone` shows at `date`, with its weekday (Monday 1). */
export function wallTimeIn(date: Date, timeZone: string): Required<TWallTime> & { weekday: number } {
  const parts: Record<string, string> = {};
  for (const part of partsFormatOf(timeZone).formatToParts(date)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? '') + 1,
  };
}

/** How far `timeZone`'s clocks are ahead of UTC at `date`, in milliseconds. */
function offsetAt(epochMs: number, timeZone: string): number {
  const wall = wallTimeIn(new Date(epochMs), timeZone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The instant a clock in `timeZone` shows `wall`. A time the clocks skip (spring forward: 01:30 in
 * London on the last Sunday of March) is read as the same time after the change (02:30), as
 * people mean it; a time shown twice (autumn) is the first of the two.
 */
export function instantOf(wall: TWallTime, timeZone: string): Date {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second ?? 0);
  // The offsets a few hours either side cover the change of any zone on that day.
  const before = offsetAt(asUtc - 12 * 3_600_000, timeZone);
  const after = offsetAt(asUtc + 12 * 3_600_000, timeZone);
  const candidates = [asUtc - before, asUtc - after].filter((t) => offsetAt(t, timeZone) === asUtc - t);
  if (candidates.length) return new Date(Math.min(...candidates));
  // Skipped: the wall time with the offset in force before the change names the moment after it.
  return new Date(asUtc - before);
}

/** The wall-clock day `days` after `wall`'s (calendar arithmetic: no zone involved). */
export function addDays(wall: TWallTime, days: number): TWallTime {
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days));
  return { ...wall, year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A `datetime-local` input's value for `date` as a clock in `timeZone` shows it ("2026-12-02T09:00"). */
export function toZonedInputValue(date: Date, timeZone: string): string {
  const w = wallTimeIn(date, timeZone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

/**
 * The instant a `datetime-local` value ("2026-12-02T09:00", seconds optional) means in `timeZone`;
 * null when it is not a date and time.
 */
export function fromZonedInputValue(value: string, timeZone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > new Date(Date.UTC(year, month, 0)).getUTCDate() ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  )
    return null;
  return instantOf({ year, month, day, hour, minute, second }, timeZone);
}

/** The browser's own time zone ("Europe/Paris"). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export { isKnownTimeZone } from './time-zone';

/**
 * How a person names the zone beside a time: "UK time" for London, else the zone's city
 * ("New York time"); for a zone without a city (`UTC`, `Etc/GMT+5`), its own name.
 */
export function zoneName(timeZone: string): string {
  if (timeZone === 'Europe/London') return 'UK time';
  const city = timeZone.includes('/') ? timeZone.slice(timeZone.lastIndexOf('/') + 1) : '';
  if (!city || timeZone.startsWith('Etc/')) return timeZone;
  return `${city.replace(/_/g, ' ')} time`;
}

const nameFormats = new Map<string, { weekday: Intl.DateTimeFormat; month: Intl.DateTimeFormat }>();

/** The weekday's and month's short names at `date` on `timeZone`'s clock, in the browser's language. */
function namesOf(date: Date, timeZone: string): { weekday: string; month: string } {
  let formats = nameFormats.get(timeZone);
  if (!formats) {
    formats = {
      weekday: new Intl.DateTimeFormat(undefined, { timeZone, weekday: 'short' }),
      month: new Intl.DateTimeFormat(undefined, { timeZone, month: 'short' }),
    };
    nameFormats.set(timeZone, formats);
  }
  return { weekday: formats.weekday.format(date), month: formats.month.format(date) };
}

/** "2 Dec", with the year when it is not `now`'s. */
function dayOf(date: Date, at: TWallTime, timeZone: string, now: Date): string {
  const year = at.year !== wallTimeIn(now, timeZone).year ? ` ${at.year}` : '';
  return `${at.day} ${namesOf(date, timeZone).month}${year}`;
}

/**
 * A moment as a clock in `timeZone` shows it, short and unambiguous: "Tue 2 Dec, 09:00" (24-hour,
 * the way the firm's presets name times), with the year when it is not this year's.
 */
export function formatWallTime(date: Date, timeZone: string, now = new Date()): string {
  const at = wallTimeIn(date, timeZone);
  return `${namesOf(date, timeZone).weekday} ${dayOf(date, at, timeZone, now)}, ${pad(at.hour)}:${pad(at.minute)}`;
}

/** Days from `from`'s calendar day to `to`'s (wall-clock days, whatever the zone's offsets do). */
function daysBetween(from: TWallTime, to: TWallTime): number {
  return Math.round((Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) / 86_400_000);
}

/**
 * A moment ahead on `timeZone`'s clock, as short as it stays clear: "14:05" today, "tomorrow 09:00",
 * "Tue 09:00" within the week, else the day ("2 Dec, 09:00", with the year when not this one's).
 */
export function formatSoon(date: Date, timeZone: string, now = new Date()): string {
  const at = wallTimeIn(date, timeZone);
  const days = daysBetween(wallTimeIn(now, timeZone), at);
  const time = `${pad(at.hour)}:${pad(at.minute)}`;
  if (days === 0) return time;
  if (days === 1) return `tomorrow ${time}`;
  if (days > 1 && days < 7) return `${namesOf(date, timeZone).weekday} ${time}`;
  return `${dayOf(date, at, timeZone, now)}, ${time}`;
}
