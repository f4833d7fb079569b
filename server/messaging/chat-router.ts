import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import type { TCommunication } from '../../shared/communication';
import { WHATSAPP_TEMPLATES } from '../../shared/templates';
import { recordAuditEvent } from '../audit';
import { ProviderError } from '../provider';
import { listStoredTemplates, syncTemplates } from '../templates';
import { AppError } from '../core/errors';
import { authedProcedure, directorProcedure, router } from '../trpc/init';
import { addNote, NOTE_MAX_LENGTH } from '../ownership';
import { retryChatMessage } from './retry-message';
import { sendChatMessage, sendTemplateMessage } from './send-message';
import { ZBody, ZCaption, ZEchoId, ZTemplateChoice } from './send-inputs';

export const ZSendInput = z.union([
  // A file first: these branches need `attachmentId` (the text-only ones would drop it).
  z.object({
    clientId: ZRecordId,
    body: ZCaption.optional(),
    caseId: ZRecordId.optional(),
    to: z.string().trim().min(1).max(40).optional(),
    attachmentId: ZRecordId,
    echoId: ZEchoId,
  }),
  z.object({ to: z.string().trim().min(1, 'Enter a number').max(40), body: ZCaption.optional(), attachmentId: ZRecordId, echoId: ZEchoId }),
  // `to`: which of the client's numbers (default: the one that last wrote, else the primary).
  // Strict: a file send refused above (a caption too long) must not pass here as a text without its file.
  z
    .object({
      clientId: ZRecordId,
      body: ZBody,
      caseId: ZRecordId.optional(),
      to: z.string().trim().min(1).max(40).optional(),
      echoId: ZEchoId,
    })
    .strict(),
  z.object({ to: z.string().trim().min(1, 'Enter a number').max(40), body: ZBody, echoId: ZEchoId }).strict(),
]);

const ZTemplateCatalogue = z.object({
  templates: z.array(
    z.object({
      name: z.string(),
      language: z.string(),
      category: z.string().nullable(),
      status: z.string(),
      body: z.string(),
      paramCount: z.number(),
      examples: z.array(z.string()),
    }),
  ),
  syncedAt: z.date().nullable(),
});

export const ZSendTemplateInput = z.union([
  z.object({
    clientId: ZRecordId,
    caseId: ZRecordId.optional(),
    to: z.string().trim().min(1).max(40).optional(),
    ...ZTemplateChoice,
    echoId: ZEchoId,
  }),
  z.object({ to: z.string().trim().min(1, 'Enter a number').max(40), ...ZTemplateChoice, echoId: ZEchoId }),
]);

export const chatRouter = router({
  send: authedProcedure
    .input(ZSendInput)
    .mutation(({ ctx, input }): Promise<TCommunication> =>
      sendChatMessage(ctx.deps, { ...input, userId: ctx.user.id, reader: ctx.reader }),
    ),

  /** An internal note in a conversation: never sent; `mentions` (ids chosen from the `@` completion) are told. */
  addNote: authedProcedure
    .input(
      z.intersection(
        z.union([z.object({ clientId: ZRecordId, caseId: ZRecordId.optional() }), z.object({ phone: z.string().trim().min(1).max(40) })]),
        z.object({
          body: z
            .string()
            .trim()
            .max(NOTE_MAX_LENGTH, `A note can be ${NOTE_MAX_LENGTH.toLocaleString('en-GB')} characters at most.`),
          mentions: z.array(ZRecordId).max(50).optional(),
        }),
      ),
    )
    .mutation(({ ctx, input }): Promise<{ id: number; mentions: number[] }> => addNote(ctx.reader, input)),

  /** `confirm`: resend one whose outcome is unknown (it may have reached them already). */
  retry: authedProcedure
    .input(z.object({ id: ZRecordId, confirm: z.boolean().optional() }))
    .mutation(({ ctx, input }): Promise<TCommunication> => retryChatMessage(ctx.deps, input.id, ctx.reader, input.confirm ?? false)),

  /** Sends an approved template: the way to reach a client outside the 24-hour window. */
  sendTemplate: authedProcedure
    .input(ZSendTemplateInput)
    .mutation(({ ctx, input }): Promise<TCommunication> =>
      sendTemplateMessage(ctx.deps, { ...input, userId: ctx.user.id, reader: ctx.reader }),
    ),

  /** The provider's template catalogue as last synced (shared by every instance). */
  providerTemplates: authedProcedure.output(ZTemplateCatalogue).query(() => listStoredTemplates()),

  refreshTemplates: directorProcedure.output(ZTemplateCatalogue).mutation(async ({ ctx }) => {
    const catalogue = await syncTemplates({
      provider: ctx.deps.provider,
      templatesPath: ctx.deps.config.messaging.templatesPath,
    }).catch((error: unknown) => {
      if (error instanceof ProviderError) throw new AppError('PROVIDER_ERROR', `The templates could not be read: ${error.message}`);
      throw error;
    });
    await recordAuditEvent({
      actor: { userId: ctx.user.id, ip: ctx.clientIp },
      action: 'templates.refresh',
      subject: 'templates',
      detail: { count: catalogue.templates.length },
    });
    return catalogue;
  }),

  templates: authedProcedure
    .output(z.array(z.object({ id: z.string(), name: z.string(), body: z.string() })))
    .query(() => WHATSAPP_TEMPLATES.map((t) => ({ ...t }))),
});
