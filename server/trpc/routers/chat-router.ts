import { z } from 'zod';
import type { TCommunication } from '../../../shared/communication';
import { WHATSAPP_TEMPLATES } from '../../../shared/templates';
import { retryChatMessage, sendChatMessage } from '../../chat/send-message';
import { authedProcedure, router } from '../init';

// NUL cannot be stored and would reach the provider as something other than what is kept: refused.
export const ZBody = z
  .string()
  .trim()
  .min(1, 'Type a message first')
  .max(4096, 'A chat message can be at most 4096 characters')
  .refine((body) => !body.includes('\u0000'), 'The message contains a NUL character, which cannot be sent');

export const ZSendInput = z.union([
  // `to`: which of the client's numbers (default: the one that last wrote, else the primary).
  z.object({ clientId: z.number().int().positive(), body: ZBody, caseId: z.number().int().positive().optional(), to: z.string().trim().min(1).max(40).optional() }),
  z.object({ to: z.string().trim().min(1, 'Enter a number').max(40), body: ZBody }),
]);

export const chatRouter = router({
  send: authedProcedure
    .input(ZSendInput)
    .mutation(({ ctx, input }): Promise<TCommunication> => sendChatMessage(ctx.deps, input)),

  retry: authedProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .mutation(({ ctx, input }): Promise<TCommunication> => retryChatMessage(ctx.deps, input.id)),

  templates: authedProcedure
    .output(z.array(z.object({ id: z.string(), name: z.string(), body: z.string() })))
    .query(() => WHATSAPP_TEMPLATES.map((t) => ({ ...t }))),
});
