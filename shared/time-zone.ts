/**
 * Whether this JavaScript knows the zone by that name (a bad name would throw in every format): the
 * configured firm zone, business hours as saved, the SPA's "send later" and the exports' clock all
 * ask the same question.
 */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
