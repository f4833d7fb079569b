// The firm's week as Settings edits it and reads it back (server/messaging/README.md "Business hours"): a day not listed
// is closed, a closed date overrides its weekday, times are the firm's own time zone's.

/** One opening of a day: `day` 1–7 (Monday 1), `opens` and `closes` as HH:MM. */
export type TOpening = { day: number; opens: string; closes: string };
export type TBusinessWeek = { timeZone: string; week: TOpening[]; closedDates: string[] };

export const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
/** How many openings one day may have (a lunch break makes two). */
export const MAX_OPENINGS_PER_DAY = 2;
export const AUTO_REPLY_LIMIT = 4096;

/** The day's name for 1–7. */
export const dayName = (day: number): string => DAY_NAMES[day - 1] ?? `Day ${day}`;

/** Every IANA time zone the browser knows, or none where it cannot list them (the field then takes any text). */
export function listTimeZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
}

/** The date (YYYY-MM-DD), ISO weekday (1–7) and time (HH:MM) at `at` in `timeZone`; null for a zone the browser does not know. */
export function localMoment(at: Date, timeZone: string): { date: string; day: number; time: string } | null {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(at);
  } catch {
    return null;
  }
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const date = `${get('year')}-${get('month')}-${get('day')}`;
  return { date, day: isoWeekday(date), time: `${get('hour')}:${get('minute')}` };
}

/** 1 (Monday) to 7 (Sunday) for a YYYY-MM-DD date. */
function isoWeekday(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const sunday0 = new Date(Date.UTC(y!, m! - 1, d)).getUTCDay();
  return sunday0 === 0 ? 7 : sunday0;
}

/** The calendar date `days` after a YYYY-MM-DD date. */
function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, d! + days)).toISOString().slice(0, 10);
}

/** The openings of a weekday, earliest first. */
export function openingsOf(week: readonly TOpening[], day: number): TOpening[] {
  return week.filter((o) => o.day === day).sort((a, b) => a.opens.localeCompare(b.opens));
}

export type TOpenState =
  | { open: true; closes: string }
  | { open: false; reason: 'closed-date' | 'closed'; next: { day: number; date: string; opens: string; daysAhead: number } | null }
  | { open: false; reason: 'unknown-zone' };

/**
 * Whether the firm is open at `at` by these hours, and until when (or when it next opens, within a
 * fortnight). Said in the firm's time zone, whatever the browser's is.
 */
export function openStateAt(hours: TBusinessWeek, at: Date): TOpenState {
  const now = localMoment(at, hours.timeZone);
  if (!now) return { open: false, reason: 'unknown-zone' };
  const closedDates = new Set(hours.closedDates);
  const isClosedDate = closedDates.has(now.date);
  if (!isClosedDate) {
    const current = openingsOf(hours.week, now.day).find((o) => o.opens <= now.time && now.time < o.closes);
    if (current) return { open: true, closes: current.closes };
  }
  for (let ahead = 0; ahead <= 14; ahead++) {
    const date = addDays(now.date, ahead);
    if (closedDates.has(date)) continue;
    const day = isoWeekday(date);
    const next = openingsOf(hours.week, day).find((o) => ahead > 0 || o.opens > now.time);
    if (next)
      return { open: false, reason: isClosedDate ? 'closed-date' : 'closed', next: { day, date, opens: next.opens, daysAhead: ahead } };
  }
  return { open: false, reason: isClosedDate ? 'closed-date' : 'closed', next: null };
}

/** "Open now, until 17:30 (Europe/London time)." or "Closed now — opens Monday 30 Nov at 09:00 (Europe/London time)." */
export function describeOpenState(state: TOpenState, timeZone: string): string {
  if (state.open) return `Open now, until ${state.closes} (${timeZone} time).`;
  if (state.reason === 'unknown-zone')
    return `This browser does not know the time zone ${timeZone}, so it cannot say whether the firm is open now.`;
  const why = state.reason === 'closed-date' ? 'Closed today (a closed date)' : 'Closed now';
  if (!state.next) return `${why}, with no opening in the next two weeks.`;
  const { daysAhead, day, date, opens } = state.next;
  const when =
    daysAhead === 0 ? 'today' : daysAhead === 1 ? 'tomorrow' : `${dayName(day)} ${formatCalendarDate(date).replace(/ \d{4}$/, '')}`;
  return `${why} — opens ${when} at ${opens} (${timeZone} time).`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Mon 09:00–17:30" lines for the week, a day with none being closed. */
export function describeWeek(week: readonly TOpening[]): { day: string; hours: string }[] {
  return DAY_NAMES.map((name, i) => {
    const openings = openingsOf(week, i + 1);
    return { day: name, hours: openings.length ? openings.map((o) => `${o.opens}–${o.closes}`).join(', ') : 'Closed' };
  });
}

/** A YYYY-MM-DD date as people read it ("25 Dec 2026"), without moving it through a time zone. */
export function formatCalendarDate(date: string): string {
  const [y, m, d] = date.split('-');
  if (!y || !m || !d) return date;
  return `${Number(d)} ${MONTHS[Number(m) - 1] ?? m} ${y}`;
}
