import { trpc } from '../../lib/trpc';
import { browserTimeZone, isKnownTimeZone, zoneName } from '../../../../shared/zoned-time';

export type TFirmZone = {
  timeZone: string;
  /** "UK time", said beside a time when the browser's own zone is another (null when it is the same). */
  label: string | null;
};

/**
 * The firm's time zone (Settings › Business hours): "Send later" times are chosen and shown on its
 * clock, so "tomorrow 9:00" is the office's morning wherever the person is. null until it is known.
 */
export function useFirmTimeZone(): { zone: TFirmZone | null; error: string | null } {
  const hours = trpc.settings.businessHours.useQuery(undefined, { staleTime: 5 * 60_000 });
  const timeZone = hours.data?.timeZone;
  if (!timeZone) return { zone: null, error: hours.error ? "The firm's time zone could not be read. Try again in a moment." : null };
  // A zone this browser does not know cannot be shown: its own clock, named, is the honest fallback.
  const known = isKnownTimeZone(timeZone) ? timeZone : browserTimeZone();
  return { zone: { timeZone: known, label: known === browserTimeZone() ? null : zoneName(known) }, error: null };
}

/** "Tue 2 Dec, 09:00" with the zone's name after it when it is not the browser's ("… 09:00 UK time"). */
export function withZone(text: string, zone: TFirmZone): string {
  return zone.label ? `${text} ${zone.label}` : text;
}
