import { formatWallTime } from '../../../../shared/zoned-time';
import { withZone, type TFirmZone } from './use-firm-time-zone';

/** A number's 24-hour window (server/decisions/0010-24-hour-window-and-approved-templates.md): when it closes (null: it never opened), and whose it is. */
export type TReplyWindow = { closesAt: Date | null; name: string };

/**
 * Why free text due at `at` will not go unless the client writes again (null: it is inside the
 * window). Said while the time is chosen and again once it is scheduled (server/messaging/README.md "Scheduled sends").
 */
export function windowWarning(at: Date, window: TReplyWindow, zone: TFirmZone): string | null {
  if (window.closesAt !== null && at <= window.closesAt) return null;
  const why =
    window.closesAt === null
      ? `${window.name} has not written from this number:`
      : `That is after ${window.name}’s 24-hour window closes (${withZone(formatWallTime(window.closesAt, zone.timeZone), zone)}):`;
  return `${why} unless they write again before then, it will not be sent. An approved template would be.`;
}
