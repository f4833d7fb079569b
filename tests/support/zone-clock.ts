/** The wall-clock date (YYYY-MM-DD), ISO weekday and minutes past midnight at `at` in `timeZone`. */
export function localMoment(timeZone: string, at = new Date()): { date: string; day: number; minutes: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const day = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(parts.weekday!) + 1;
  return { date: `${parts.year}-${parts.month}-${parts.day}`, day, minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

// Hours apart (0, +9, −5 from London, give or take summer time): at any moment at least two are far from midnight.
const FIRM_ZONES = ['Europe/London', 'Asia/Tokyo', 'America/New_York'];

/**
 * A firm zone whose clock is now at least `after` minutes past midnight and `before` minutes short of the next
 * (so a test's "minutes ago" and its next few minutes fall on one date): the test sets the firm's hours in it
 * instead of waiting for London's clock to move away from midnight.
 */
export function zoneAwayFromMidnight({ after = 30, before = 30 } = {}, at = new Date()): string {
  const zone = FIRM_ZONES.find((z) => {
    const { minutes } = localMoment(z, at);
    return minutes >= after && minutes < 24 * 60 - before;
  });
  if (!zone) throw new Error(`no firm zone is ${after} minutes past midnight and ${before} before the next`);
  return zone;
}
