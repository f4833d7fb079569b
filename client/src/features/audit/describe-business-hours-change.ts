import type { TAuditDetail } from '../../../../shared/audit/audit-details';
import { listed, plural } from './audit-detail-words';

const SHORT_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/**
 * The week as the trail keeps it (["1 09:00-17:30", …]) in a few words: days with the same hours
 * run together ("Mon–Fri 09:00–17:30, Sat 10:00–13:00"); an empty week is "closed every day".
 */
function describeTrailWeek(value: string[]): string | null {
  const byDay = new Map<number, string[]>();
  for (const entry of value) {
    const match = /^([1-7]) (\d{2}:\d{2})-(\d{2}:\d{2})$/.exec(entry);
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

/** What a save of the business hours changed: the zone, the week, the closed dates, the reply (its length only: the trail keeps no words). */
export function businessHoursChanges(d: Partial<TAuditDetail<'settings.business_hours'>>): string[] {
  const changes: string[] = [];
  if (d.timeZone) changes.push(`time zone ${d.timeZone.from ? `${d.timeZone.from} → ` : ''}${d.timeZone.to || '?'}`);
  if (d.week) changes.push(`hours ${describeTrailWeek(d.week.to) ?? 'changed'}`);
  if (d.closedDates) {
    const added = d.closedDates.added.map(calendarDate);
    const removed = d.closedDates.removed.map(calendarDate);
    if (added.length) changes.push(`closed on ${listed(added)}`);
    if (removed.length) changes.push(`open again on ${listed(removed)}`);
  }
  if (d.autoReply) {
    const { from, to } = d.autoReply;
    changes.push(to ? `${from ? 'a new' : 'an'} automatic reply (${plural(to.length, 'character')})` : 'no automatic reply');
  }
  return changes;
}
