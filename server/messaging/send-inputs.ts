import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import { BUTTON_TITLE_MAX, buttonTitleProblems, titleAsSeen } from '../../shared/button-titles';

// NUL cannot be stored and would reach the provider as something other than what is kept: refused.
export const ZBody = z
  .string()
  .trim()
  .min(1, 'Type a message first')
  .max(4096, 'A chat message can be at most 4096 characters')
  .refine((body) => !body.includes('\u0000'), 'The message contains a NUL character, which cannot be sent');

// With a file the body is its caption (the provider's caption limit is 1,024 characters), or empty.
export const ZCaption = z
  .string()
  .trim()
  .max(1024, 'A caption can be at most 1024 characters')
  .refine((body) => !body.includes('\u0000'), 'The caption contains a NUL character, which cannot be sent');

/** The browser's id for one send (a UUID): a send tried again with it is answered with the first record. */
export const ZEchoId = z
  .string()
  .regex(/^[0-9A-Za-z-]{8,64}$/, 'An echo id is 8 to 64 letters, digits or dashes')
  .optional();

/** The firm's number to send from (server/numbers/README.md "Several numbers"); absent: the one the client last wrote to. */
export const ZFromNumberId = ZRecordId.optional();

export const ZTemplateChoice = {
  name: z.string().trim().min(1, 'Choose a template').max(512),
  language: z.string().trim().min(1).max(32),
  params: z
    .array(
      z
        .string()
        .max(1024, 'A value can be at most 1024 characters')
        .refine((v) => !v.includes('\u0000'), 'NUL cannot be sent'),
    )
    .max(20),
};

// A question with quick-reply buttons (server/messaging/README.md "Quick-reply buttons"): the provider's limits for an
// interactive message — its text at most 1,024 characters, one to three buttons, each title at most
// 20 characters as the client sees them and each id at most 256, no two alike.
export const INTERACTIVE_BODY_MAX = 1024;
export { BUTTON_TITLE_MAX };
export const BUTTON_ID_MAX = 256;
export const BUTTONS_MAX = 3;

export const ZInteractiveBody = z
  .string()
  .trim()
  .min(1, 'Type the question first')
  .max(INTERACTIVE_BODY_MAX, `A message with buttons can be at most ${INTERACTIVE_BODY_MAX} characters`)
  .refine((body) => !body.includes('\u0000'), 'The message contains a NUL character, which cannot be sent');

export const ZReplyButton = z.object({
  id: z
    .string()
    .trim()
    .min(1, 'Each button needs an id')
    .max(BUTTON_ID_MAX, `A button id can be at most ${BUTTON_ID_MAX} characters`)
    .refine((id) => !id.includes('\u0000'), 'A button id cannot contain a NUL character'),
  title: z
    .string()
    .trim()
    // Kept and sent composed (NFC): `e` + U+0301 becomes the `é` it is seen as.
    .normalize('NFC')
    .min(1, 'Each button needs a title')
    .superRefine((title, ctx) => {
      for (const message of buttonTitleProblems(title)) ctx.addIssue({ code: 'custom', message });
    }),
});

const sameTwice = (values: string[]) => new Set(values).size !== values.length;

export const ZReplyButtons = z
  .array(ZReplyButton)
  .min(1, 'Add at least one button')
  .max(BUTTONS_MAX, `A message can have at most ${BUTTONS_MAX} buttons`)
  .refine((buttons) => !sameTwice(buttons.map((b) => b.id)), 'Two buttons have the same id: give each its own')
  // The client sees titles only: two alike could not be told apart (the provider refuses them too).
  .refine((buttons) => !sameTwice(buttons.map((b) => titleAsSeen(b.title))), 'Two buttons have the same title: give each its own');
