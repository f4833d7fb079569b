import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import type { TCommunication } from '../../shared/communication';
import { WHATSAPP_TEMPLATES } from '../../shared/templates';
import { recordAuditEvent } from '../audit/record-audit-event';
import { listStoredTemplates, syncTemplates } from '../templates/template-catalogue';
import { AppError } from '../core/errors';
import { ProviderError } from '../provider/provider-errors';
import { authedProcedure, directorProcedure, router } from '../trpc/init';
import { retryChatMessage, sendChatMessage, sendTemplateMessage } from './send-message';

// NUL cannot be stored and would reach the provider as something other than what is kept: refused.
export const ZBody = z
  .string()
  .trim()
  .min(1, 'Type a message first')
  .max(4096, 'A chat message can be at most 4096 characters')
  .refine((body) => !body.includes('\u0000'), 'The message contains a NUL character, which cannot be sent');

// With a file the body is its caption (the provider's caption limit is 1,024 characters), or empty.
const ZCaption = z
  .string()
  .trim()
  .max(1024, 'A caption can be at most 1024 characters')
  .refine((body) => !body.includes('\u0000'), 'The caption contains a NUL character, which cannot be sent');

/** The browser's id for one send (a UUID): a send tried again with it is answered with the first record. */
const ZEchoId = z
  .string()
  .regex(/^[0-9A-Za-z-]{8,64}$/, 'An echo id is 8 to 64 letters, digits or dashes')
  .optional();

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
    .mutation(({ ctx, input }): Promise<TCommunication> => sendChatMessage(ctx.deps, { ...input, userId: ctx.user.id })),

  /** `confirm`: resend one whose outcome is unknown (it may have reached them already). */
  retry: authedProcedure
    .input(z.object({ id: ZRecordId, confirm: z.boolean().optional() }))
    .mutation(({ ctx, input }): Promise<TCommunication> => retryChatMessage(ctx.deps, input.id, ctx.user.id, input.confirm ?? false)),

  /** Sends an approved template: the way to reach a client outside the 24-hour window. */
  sendTemplate: authedProcedure
    .input(ZSendTemplateInput)
    .mutation(({ ctx, input }): Promise<TCommunication> => sendTemplateMessage(ctx.deps, { ...input, userId: ctx.user.id })),

  /** The provider's template catalogue as last synced (shared by every instance). */
  providerTemplates: authedProcedure.output(ZTemplateCatalogue).query(({ ctx }) => listStoredTemplates(ctx.deps.sequelize)),

  refreshTemplates: directorProcedure.output(ZTemplateCatalogue).mutation(async ({ ctx }) => {
    const catalogue = await syncTemplates(ctx.deps.sequelize, {
      provider: ctx.deps.provider,
      templatesPath: ctx.deps.config.messaging.templatesPath,
    }).catch((error: unknown) => {
      if (error instanceof ProviderError) throw new AppError('PROVIDER_ERROR', `The templates could not be read: ${error.message}`);
      throw error;
    });
    await recordAuditEvent(ctx.deps.sequelize, {
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
