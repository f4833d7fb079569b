import { z } from 'zod';
import { ZPhoneInput } from '../../shared/phone-schema';
import { ZBody, ZCaption, ZTemplateChoice } from '../messaging';
import { AppError } from '../core/errors';
import { ZRecordId } from '../trpc/record-id';

// What a scheduled send may hold (server/messaging/README.md "Scheduled sends"): the same rules as a send now, plus a
// time. The message's own rules (ZBody, a caption's) are checked by the procedures, so that a bad
// body and a missing choice are told apart in words a person can act on.

/** An approved template and its values; `header`: an upload of the caller's for a template with a media header. */
export const ZScheduledTemplate = z.object({
  ...ZTemplateChoice,
  header: z.object({ attachmentId: ZRecordId }).optional(),
});
export type TScheduledTemplate = z.infer<typeof ZScheduledTemplate>;

const ZSendAt = z.coerce.date({ error: 'Pick a date and time to send it.' });

export const ZScheduleInput = z.object({
  clientId: ZRecordId,
  /** Which of the client's numbers (default: the one that last wrote, else the primary), fixed now. */
  to: ZPhoneInput.optional(),
  caseId: ZRecordId.optional(),
  /** The firm's number it goes from (default: the one the client last wrote to), fixed now. */
  fromNumberId: ZRecordId.optional(),
  /** The text; with `attachmentId`, the file's caption. */
  body: z.string().max(8192, 'A chat message can be at most 4096 characters').optional(),
  template: ZScheduledTemplate.optional(),
  attachmentId: ZRecordId.optional(),
  sendAt: ZSendAt,
  /** Not sent if the client writes after it was scheduled ("Don't send if they reply first"); default false. */
  unlessReplied: z.boolean().optional(),
});
export type TScheduleInput = z.infer<typeof ZScheduleInput>;

export const ZRescheduleInput = z.object({ id: ZRecordId, sendAt: ZSendAt });
export const ZEditScheduledInput = z.object({ id: ZRecordId, body: z.string().max(8192, 'A chat message can be at most 4096 characters') });
export const ZScheduledIdInput = z.object({ id: ZRecordId });
/** `everyone`: every person's, not the caller's own (directors only: the router refuses it to staff). */
export const ZScheduledListInput = z.object({ clientId: ZRecordId.optional(), everyone: z.boolean().optional() }).optional();

/** Clock difference between a browser and the server that a time "now" may be behind by. */
const CLOCK_SLACK_MS = 30_000;
/** The furthest ahead a send may be scheduled: a year. */
const MAX_AHEAD_MS = 366 * 24 * 60 * 60 * 1000;

/** `sendAt` as a time to send at, or INVALID_INPUT on `sendAt`: passed (beyond clock slack), or more than a year ahead. */
export function checkSendAt(sendAt: Date, now: Date): Date {
  if (Number.isNaN(sendAt.getTime()))
    throw new AppError('INVALID_INPUT', 'Pick a date and time to send it.', { sendAt: ['Pick a date and time.'] });
  if (sendAt.getTime() < now.getTime() - CLOCK_SLACK_MS)
    throw new AppError('INVALID_INPUT', 'That time has passed: pick a later time to send it.', { sendAt: ['That time has passed.'] });
  if (sendAt.getTime() - now.getTime() > MAX_AHEAD_MS)
    throw new AppError('INVALID_INPUT', 'A message can be scheduled a year ahead at most: pick an earlier time.', {
      sendAt: ['More than a year ahead.'],
    });
  return sendAt;
}

/** The text of a scheduled text (ZBody's rules) or a file's caption, trimmed; INVALID_INPUT on `body`. */
export function checkScheduledBody(body: string | undefined, withFile: boolean): string {
  const parsed = (withFile ? ZCaption : ZBody).safeParse(body ?? '');
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues[0]?.message ?? 'Type a message first';
  throw new AppError('INVALID_INPUT', `${message}.`, { body: [message] });
}
