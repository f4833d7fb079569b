import type { TOutputs } from '../../lib/trpc';
import { MAX_OPENINGS_PER_DAY, type TOpening } from './business-week';

/** The hours as the server has them (`hoursSet` false: never saved, the rest is its default). */
export type TSavedHours = TOutputs['settings']['businessHours'];
/** What Save sends. */
export type THoursInput = { timeZone: string; week: TOpening[]; closedDates: string[]; autoReply: string | null };

/** One day as the form edits it: closed, or open in one or two intervals. */
export type TDayDraft = { open: boolean; intervals: { opens: string; closes: string }[] };
/** What the form holds until Save: every day (Monday first), even the closed ones keep their times. */
export type TDraft = { timeZone: string; days: TDayDraft[]; closedDates: string[]; autoReply: string };

const OFFICE_DAY = { opens: '09:00', closes: '17:30' };

/** The form's first state: the saved hours, or (none saved yet) an office week in the server's default zone. */
export function draftOf(saved: TSavedHours): TDraft {
  if (!saved.hoursSet) {
    return {
      timeZone: saved.timeZone,
      days: Array.from({ length: 7 }, (_, i) => ({ open: i < 5, intervals: [{ ...OFFICE_DAY }] })),
      closedDates: [],
      autoReply: '',
    };
  }
  return {
    timeZone: saved.timeZone,
    days: Array.from({ length: 7 }, (_, i) => {
      const intervals = saved.week
        .filter((o) => o.day === i + 1)
        .sort((a, b) => a.opens.localeCompare(b.opens))
        .map(({ opens, closes }) => ({ opens, closes }));
      return intervals.length ? { open: true, intervals } : { open: false, intervals: [{ ...OFFICE_DAY }] };
    }),
    closedDates: [...saved.closedDates].sort(),
    autoReply: saved.autoReply ?? '',
  };
}

/** What Save sends: the open days' intervals, the dates in order, and no reply for an empty text. */
export function inputOf(draft: TDraft): THoursInput {
  const week: TOpening[] = draft.days.flatMap((d, i) => (d.open ? d.intervals.map((iv) => ({ day: i + 1, ...iv })) : []));
  return {
    timeZone: draft.timeZone.trim(),
    week,
    closedDates: [...draft.closedDates].sort(),
    autoReply: draft.autoReply.trim() ? draft.autoReply : null,
  };
}

/**
 * A day with a second interval: a day open across lunch is split around it (09:00–13:00 and
 * 14:00–17:30), else an evening after it. At most MAX_OPENINGS_PER_DAY.
 */
export function withSecondInterval(day: TDayDraft): TDayDraft {
  const [first] = day.intervals;
  if (!first || day.intervals.length >= MAX_OPENINGS_PER_DAY) return day;
  if (first.opens < '13:00' && first.closes > '14:00')
    return {
      ...day,
      intervals: [
        { opens: first.opens, closes: '13:00' },
        { opens: '14:00', closes: first.closes },
      ],
    };
  return { ...day, intervals: [first, { opens: '18:00', closes: '20:00' }] };
}
