// Times in an export are read by people on the firm's clock (server/export/README.md "Evidence exports"), and a court
// may compare them with records kept in UTC: each is written in the firm's zone, the UTC beside it.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** A zone's offset and its short name ("GMT", "BST", "GMT-5") over one quarter of an hour. */
type TZoneMoment = { offsetMs: number; name: string };

/**
 * Zones change offset only at whole quarter hours, so one lookup serves every time in the same
 * quarter: Intl is slow next to drawing (an export of 10,000 messages writes some 50,000 times).
 */
const QUARTER_HOUR_MS = 15 * 60_000;
const MOMENTS_KEPT = 4_096;

type TZoneClock = { format: Intl.DateTimeFormat; moments: Map<number, TZoneMoment> };
const clocks = new Map<string, TZoneClock>();

function clockOf(zone: string): TZoneClock {
  let clock = clocks.get(zone);
  if (!clock) {
    clock = {
      format: new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        hourCycle: 'h23',
        timeZoneName: 'short',
      }),
      moments: new Map(),
    };
    clocks.set(zone, clock);
  }
  return clock;
}

function momentIn(zone: string, ms: number): TZoneMoment {
  const clock = clockOf(zone);
  const quarter = Math.floor(ms / QUARTER_HOUR_MS);
  let moment = clock.moments.get(quarter);
  if (!moment) {
    const parts: Record<string, string> = {};
    for (const part of clock.format.formatToParts(quarter * QUARTER_HOUR_MS)) parts[part.type] = part.value;
    const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute));
    moment = { offsetMs: wall - quarter * QUARTER_HOUR_MS, name: parts.timeZoneName ?? zone };
    if (clock.moments.size >= MOMENTS_KEPT) clock.moments.clear();
    clock.moments.set(quarter, moment);
  }
  return moment;
}

const pad = (n: number) => String(n).padStart(2, '0');
const dayOf = (date: Date) => `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
const clockTimeOf = (date: Date) => `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;

/**
 * "26 Nov 2026 14:03:22 GMT (14:03:22 UTC)"; the UTC date too when it is another day there:
 * "27 Nov 2026 01:03:22 GMT+11 (26 Nov 2026 14:03:22 UTC)". In UTC itself, once: "… 14:03:22 UTC".
 * '—' for no time.
 */
export function formatFirmTime(iso: string | null, zone: string): string {
  if (!iso) return '—';
  const utc = new Date(iso);
  if (Number.isNaN(utc.getTime())) return iso;
  const moment = momentIn(zone, utc.getTime());
  if (moment.offsetMs === 0 && moment.name === 'UTC') return `${dayOf(utc)} ${clockTimeOf(utc)} UTC`;
  const wall = new Date(utc.getTime() + moment.offsetMs);
  const utcDay = dayOf(utc);
  const wallDay = dayOf(wall);
  return `${wallDay} ${clockTimeOf(wall)} ${moment.name} (${wallDay === utcDay ? '' : `${utcDay} `}${clockTimeOf(utc)} UTC)`;
}
