import { z } from 'zod';
import { placeholderProblem } from '../../shared/wording-placeholders';
import { ZRecordId } from '../trpc/record-id';

// What a piece of the firm's wording may be (server/wording/README.md "Firm wording"): a title the
// composer's picker shows and a body inserted as a message, so no longer than a chat message.

export const TITLE_MAX = 80;
export const BODY_MAX = 4096;

const ZTitle = z.string().trim().min(1, 'Give it a title').max(TITLE_MAX, `A title can be at most ${TITLE_MAX} characters`);
const ZWordingBody = z
  .string()
  .trim()
  .min(1, 'Write the wording')
  .max(BODY_MAX, `The wording can be at most ${BODY_MAX} characters`)
  .superRefine((body, ctx) => {
    const problem = placeholderProblem(body);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const ZWording = z.object({
  id: z.number(),
  title: z.string(),
  body: z.string(),
  updatedAt: z.date(),
  updatedBy: z.object({ id: z.number(), name: z.string() }).nullable(),
});
export type TWording = z.infer<typeof ZWording>;

export const ZAddWordingInput = z.object({ title: ZTitle, body: ZWordingBody }).strict();
export type TAddWordingInput = z.infer<typeof ZAddWordingInput>;

export const ZUpdateWordingInput = z
  .object({ id: ZRecordId, title: ZTitle.optional(), body: ZWordingBody.optional() })
  .strict()
  .refine((input) => input.title !== undefined || input.body !== undefined, {
    message: 'Change the title or the wording',
    path: ['title'],
  });
export type TUpdateWordingInput = z.infer<typeof ZUpdateWordingInput>;

export const ZRemoveWordingInput = z.object({ id: ZRecordId }).strict();
