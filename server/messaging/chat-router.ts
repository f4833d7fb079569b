import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import { isOneEmoji, type TCommunication } from '../../shared/communication';
import { WHATSAPP_TEMPLATES } from '../../shared/templates';
import { recordAuditEvent } from '../audit';
import { ProviderError } from '../provider';
import { HEADER_FORMATS, listStoredTemplates, syncTemplates } from '../templates';
import { AppError } from '../core/errors';
import { authedProcedure, directorProcedure, router } from '../trpc/init';
import { addNote, NOTE_MAX_LENGTH } from '../ownership';
import { retryChatMessage } from './retry-message';
import { sendChatMessage, sendTemplateMessage } from './send-message';
import { reactToMessage } from './react-to-message';
import { sendButtonsMessage } from './send-buttons';
import { ZBody, ZCaption, ZEchoId, ZInteractiveBody, ZReplyButtons, ZTemplateChoice } from './send-inputs';

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
      /** What the header holds: a DOCUMENT, IMAGE or VIDEO one is sent with a file (`header` of `sendTemplate`). */
      headerFormat: z.enum(HEADER_FORMATS).nullable(),
    }),
  ),
  syncedAt: z.date().nullable(),
});

/** A template's document, image or video header: the sender's upload (`POST /api/media`), not sent yet. */
const ZTemplateHeader = z.object({ attachmentId: ZRecordId }).strict();

export const ZSendTemplateInput = z.union([
  z.object({
    clientId: ZRecordId,
    caseId: ZRecordId.optional(),
    to: z.string().trim().min(1).max(40).optional(),
    ...ZTemplateChoice,
    header: ZTemplateHeader.optional(),
    echoId: ZEchoId,
  }),
  z.object({
    to: z.string().trim().min(1, 'Enter a number').max(40),
    ...ZTemplateChoice,
    header: ZTemplateHeader.optional(),
    echoId: ZEchoId,
  }),
]);

/**
 * A question with quick-reply buttons (README "Quick-reply buttons"), to a client's number or a
 * typed one. One object rather than a union of the two, so a refusal names its field.
 */
export const ZSendButtonsInput = z
  .object({
    clientId: ZRecordId.optional(),
    caseId: ZRecordId.optional(),
    to: z.string().trim().min(1, 'Enter a number').max(40).optional(),
    body: ZInteractiveBody,
    buttons: ZReplyButtons,
    echoId: ZEchoId,
  })
  .strict()
  .refine((input) => input.clientId !== undefined || input.to !== undefined, { message: 'Choose a client or enter a number', path: ['to'] })
  .refine((input) => input.caseId === undefined || input.clientId !== undefined, {
    message: 'A case needs its client',
    path: ['caseId'],
  });

/** `emoji`: exactly one emoji, or empty to take the firm's reaction away (README "Reactions"). */
export const ZReactInput = z.object({
  communicationId: ZRecordId,
  emoji: z
    .string()
    .trim()
    .max(64, 'React with exactly one emoji')
    .refine((emoji) => emoji === '' || isOneEmoji(emoji), 'React with exactly one emoji'),
});

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

  /** A question with up to three quick-reply buttons; the client's choice comes back linked to it. */
  sendButtons: authedProcedure
    .input(ZSendButtonsInput)
    .mutation(({ ctx, input }): Promise<TCommunication> =>
      sendButtonsMessage(ctx.deps, { ...input, userId: ctx.user.id, reader: ctx.reader }),
    ),

  /** The firm's reaction to a client's message (one per message: a new one replaces it, an empty one removes it). */
  react: authedProcedure
    .input(ZReactInput)
    .mutation(({ ctx, input }): Promise<TCommunication> =>
      reactToMessage(ctx.deps, { ...input, userId: ctx.user.id, reader: ctx.reader }, ctx.deps.now()),
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
