import { z } from 'zod';

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
