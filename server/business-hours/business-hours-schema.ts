import { z } from 'zod';
import { isKnownTimeZone } from '../../shared/time-zone';
import { showInvisibleCharacters } from '../../shared/visible-text';

// The firm's week as a director types it (server/messaging/README.md "Business hours"). Times are the firm's wall-clock
// time in its time zone; a day may appear more than once (split hours), and an opening ends the
// same day: a night shift is two openings, 22:00–24:00 and 00:00–06:00 the next day.

/** Where hours are read when none were ever set: the firm's default (its number is a UK one). */
export const DEFAULT_TIME_ZONE = 'Europe/London';
export const AUTO_REPLY_MAX_LENGTH = 4096;
export const TIME_ZONE_REFUSAL = 'Choose a time zone such as Europe/London';

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
/** "Monday" for 1 … "Sunday" for 7 (ISO days, as PostgreSQL's isodow counts them). */
export const dayName = (day: number): string => DAY_NAMES[day - 1] ?? `day ${day}`;

/** Whether `YYYY-MM-DD` is a day of the calendar (2026-02-30 is not). */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const ZClock = (what: string, allowEndOfDay: boolean) =>
  z
    .string()
    .trim()
    .regex(
      allowEndOfDay ? /^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$/ : /^([01][0-9]|2[0-3]):[0-5][0-9]$/,
      `Write the ${what} time as HH:MM on the 24-hour clock, such as 09:00${allowEndOfDay ? ' (24:00 for midnight at the end of the day)' : ''}`,
    );

/** Only when every field of the object passed: one mistake, one message. */
const whenValid = { when: (payload: { issues: unknown[] }) => payload.issues.length === 0 };

export const ZOpening = z
  .object({
    day: z
      .number({ error: 'Choose a day from 1 (Monday) to 7 (Sunday)' })
      .int('Choose a day from 1 (Monday) to 7 (Sunday)')
      .min(1, 'Choose a day from 1 (Monday) to 7 (Sunday)')
      .max(7, 'Choose a day from 1 (Monday) to 7 (Sunday)'),
    opens: ZClock('opening', false),
    // 24:00 is the end of the day (PostgreSQL's time type knows it), so "until midnight" can be said.
    closes: ZClock('closing', true),
  })
  // Zero-padded HH:MM compares as text the way it compares as time.
  .refine((o) => o.opens < o.closes, {
    error: (issue) => {
      const o = issue.input as { day: number; opens: string; closes: string };
      return `${dayName(o.day)}: the opening time (${o.opens}) must be before the closing time (${o.closes}); for hours past midnight add the next day from 00:00`;
    },
    path: ['closes'],
    ...whenValid,
  });
export type TOpening = z.infer<typeof ZOpening>;

const ZClosedDate = z
  .string()
  .trim()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, { error: 'Write each closed date as YYYY-MM-DD, such as 2026-12-25', abort: true })
  .refine(isCalendarDate, { error: (issue) => `${String(issue.input)} is not a date on the calendar` });

export const ZBusinessHoursInput = z
  .object({
    timeZone: z.string().trim().max(64, TIME_ZONE_REFUSAL).refine(isKnownTimeZone, TIME_ZONE_REFUSAL),
    week: z.array(ZOpening).max(70, 'At most 70 opening times'),
    closedDates: z.array(ZClosedDate).max(1000, 'At most 1,000 closed dates: remove past ones first'),
    autoReply: z
      .string()
      .trim()
      .max(AUTO_REPLY_MAX_LENGTH, `The reply can be at most ${AUTO_REPLY_MAX_LENGTH.toLocaleString('en-GB')} characters`)
      // Line breaks, tabs and emoji sequences are the reply's own; a NUL cannot be stored, and other
      // unseen characters would make the client read something other than what the firm saw.
      .refine(
        (reply) => showInvisibleCharacters(reply) === reply,
        'The reply has a hidden control or text-direction character (often pasted with it): type it again',
      )
      // An empty box is no reply.
      .transform((reply) => (reply === '' ? null : reply))
      .nullable(),
  })
  .refine((input) => input.autoReply === null || input.week.length > 0, {
    error: 'Add the hours the firm is open: without them there is no "out of hours" to reply in',
    path: ['week'],
    ...whenValid,
  });
export type TBusinessHoursInput = z.infer<typeof ZBusinessHoursInput>;

export const ZBusinessHours = z.object({
  /** Whether a director ever saved hours; when not, the rest is the default. */
  hoursSet: z.boolean(),
  timeZone: z.string(),
  week: z.array(z.object({ day: z.number(), opens: z.string(), closes: z.string() })),
  closedDates: z.array(z.string()),
  autoReply: z.string().nullable(),
  /** Open at this moment by those hours; null when no hours are set (an empty week). */
  openNow: z.boolean().nullable(),
  updatedAt: z.date().nullable(),
  updatedBy: z.object({ id: z.number(), name: z.string() }).nullable(),
});
export type TBusinessHours = z.infer<typeof ZBusinessHours>;
