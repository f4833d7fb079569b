import { count, listed, plural, text, type TDetail } from './audit-detail-words';

const SHORT_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/**
 * The week as the trail keeps it (["1 09:00-17:30", …]) in a few words: days with the same hours
 * run together ("Mon–Fri 09:00–17:30, Sat 10:00–13:00"); an empty week is "closed every day".
 */
function describeTrailWeek(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const byDay = new Map<number, string[]>();
  for (const entry of value) {
    const match = typeof entry === 'string' ? /^([1-7]) (\d{2}:\d{2})-(\d{2}:\d{2})$/.exec(entry) : null;
    if (!match) return null;
    const day = Number(match[1]);
    byDay.set(day, [...(byDay.get(day) ?? []), `${match[2]}–${match[3]}`]);
  }
  if (byDay.size === 0) return 'closed every day';
  const runs: { from: number; to: number; hours: string }[] = [];
  for (let day = 1; day <= 7; day++) {
    const hours = byDay.get(day)?.join(' and ');
    if (!hours) continue;
    const last = runs.at(-1);
    if (last && last.to === day - 1 && last.hours === hours) last.to = day;
    else runs.push({ from: day, to: day, hours });
  }
  return runs.map((r) => `${SHORT_DAYS[r.from - 1]}${r.to > r.from ? `–${SHORT_DAYS[r.to - 1]}` : ''} ${r.hours}`).join(', ');
}

const calendarDate = (value: string) => {
  const [y, m, d] = value.split('-');
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][Number(m) - 1];
  return y && month && d ? `${Number(d)} ${month} ${y}` : value;
};
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : []);
const object = (d: TDetail, key: string): TDetail | null =>
  typeof d[key] === 'object' && d[key] !== null && !Array.isArray(d[key]) ? (d[key] as TDetail) : null;

/** What a save of the business hours changed: the zone, the week, the closed dates, the reply (its length only: the trail keeps no words). */
export function businessHoursChanges(d: TDetail): string[] {
  const changes: string[] = [];
  const zone = object(d, 'timeZone');
  if (zone) {
    const from = text(zone, 'from');
    changes.push(`time zone ${from ? `${from} → ` : ''}${text(zone, 'to') ?? '?'}`);
  }
  const week = object(d, 'week');
  if (week) changes.push(`hours ${describeTrailWeek(week.to) ?? 'changed'}`);
  const dates = object(d, 'closedDates');
  if (dates) {
    const added = strings(dates.added).map(calendarDate);
    const removed = strings(dates.removed).map(calendarDate);
    if (added.length) changes.push(`closed on ${listed(added)}`);
    if (removed.length) changes.push(`open again on ${listed(removed)}`);
  }
  const reply = object(d, 'autoReply');
  if (reply) {
    const to = object(reply, 'to');
    const length = to ? count(to, 'length') : null;
    if (!to) changes.push('no automatic reply');
    else
      changes.push(
        `${object(reply, 'from') ? 'a new' : 'an'} automatic reply${length !== null ? ` (${plural(length, 'character')})` : ''}`,
      );
  }
  return changes;
}
