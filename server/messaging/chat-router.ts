import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import { CONFIGURED_NUMBER_ID, listFirmNumbers } from '../numbers';
import { isOneEmoji } from '../../shared/communication';
import { ZCommunication } from '../../shared/communication-schema';
import { phoneInput, ZPhoneInput } from '../../shared/phone-schema';
import { WHATSAPP_TEMPLATES } from '../../shared/templates';
import { recordAuditEvent } from '../audit';
import { ProviderError } from '../provider';
import { HEADER_FORMATS, listStoredTemplates, syncTemplates } from '../templates';
import { AppError } from '../core/errors';
import { authedProcedure, directorProcedure, router } from '../trpc/init';
import { addNote, NOTE_MAX_LENGTH } from '../ownership';
import { retryChatMessage } from './retry-message';
import { sendChatMessage, sendTemplateMessage } from './send-message';
import { reactToMessage, type TReactDeps } from './react-to-message';
import type { TSendDeps } from './send-deps';
import { sendButtonsMessage } from './send-buttons';
import { ZBody, ZCaption, ZEchoId, ZFromNumberId, ZInteractiveBody, ZReplyButtons, ZTemplateChoice } from './send-inputs';

export const ZSendInput = z.union([
  // A file first: these branches need `attachmentId` (the text-only ones would drop it).
  z.object({
    clientId: ZRecordId,
    body: ZCaption.optional(),
    caseId: ZRecordId.optional(),
    to: ZPhoneInput.optional(),
    attachmentId: ZRecordId,
    echoId: ZEchoId,
    fromNumberId: ZFromNumberId,
  }),
  z.object({
    to: phoneInput('Enter a number'),
    body: ZCaption.optional(),
    attachmentId: ZRecordId,
    echoId: ZEchoId,
    fromNumberId: ZFromNumberId,
  }),
  // `to`: which of the client's numbers (default: the one that last wrote, else the primary).
  // Strict: a file send refused above (a caption too long) must not pass here as a text without its file.
  z
    .object({
      clientId: ZRecordId,
      body: ZBody,
      caseId: ZRecordId.optional(),
      to: ZPhoneInput.optional(),
      echoId: ZEchoId,
      fromNumberId: ZFromNumberId,
    })
    .strict(),
  z.object({ to: phoneInput('Enter a number'), body: ZBody, echoId: ZEchoId, fromNumberId: ZFromNumberId }).strict(),
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
    to: ZPhoneInput.optional(),
    ...ZTemplateChoice,
    header: ZTemplateHeader.optional(),
    echoId: ZEchoId,
    fromNumberId: ZFromNumberId,
  }),
  z.object({
    to: phoneInput('Enter a number'),
    ...ZTemplateChoice,
    header: ZTemplateHeader.optional(),
    echoId: ZEchoId,
    fromNumberId: ZFromNumberId,
  }),
]);

/**
 * A question with quick-reply buttons (server/messaging/README.md "Quick-reply buttons"), to a client's number or a
 * typed one. One object rather than a union of the two, so a refusal names its field.
 */
export const ZSendButtonsInput = z
  .object({
    clientId: ZRecordId.optional(),
    caseId: ZRecordId.optional(),
    to: phoneInput('Enter a number').optional(),
    body: ZInteractiveBody,
    buttons: ZReplyButtons,
    echoId: ZEchoId,
    fromNumberId: ZFromNumberId,
  })
  .strict()
  .refine((input) => input.clientId !== undefined || input.to !== undefined, { message: 'Choose a client or enter a number', path: ['to'] })
  .refine((input) => input.caseId === undefined || input.clientId !== undefined, {
    message: 'A case needs its client',
    path: ['caseId'],
  });

/** `emoji`: exactly one emoji, or empty to take the firm's reaction away (server/messaging/README.md "Reactions"). */
export const ZReactInput = z.object({
  communicationId: ZRecordId,
  emoji: z
    .string()
    .trim()
    .max(64, 'React with exactly one emoji')
    .refine((emoji) => emoji === '' || isOneEmoji(emoji), 'React with exactly one emoji'),
});

/**
 * What the chat procedures need beyond the request: the send path's collaborators, the firm's
 * number (reactions), where the provider's templates are read (MESSAGING_TEMPLATES_PATH), the clock.
 */
export type TChatRouterDeps = TSendDeps & TReactDeps & { templatesPath: string; now: () => Date };

export function createChatRouter(deps: TChatRouterDeps) {
  return router({
    send: authedProcedure
      .input(ZSendInput)
      .output(ZCommunication)
      .mutation(({ ctx, input }) => sendChatMessage(deps, { ...input, userId: ctx.user.id, reader: ctx.reader })),

    /** An internal note in a conversation: never sent; `mentions` (ids chosen from the `@` completion) are told. */
    addNote: authedProcedure
      .input(
        z.intersection(
          z.union([z.object({ clientId: ZRecordId, caseId: ZRecordId.optional() }), z.object({ phone: ZPhoneInput })]),
          z.object({
            body: z
              .string()
              .trim()
              .max(NOTE_MAX_LENGTH, `A note can be ${NOTE_MAX_LENGTH.toLocaleString('en-GB')} characters at most.`),
            mentions: z.array(ZRecordId).max(50).optional(),
          }),
        ),
      )
      .output(z.object({ id: z.number(), mentions: z.array(z.number()) }))
      .mutation(({ ctx, input }) => addNote(ctx.reader, input)),

    /** `confirm`: resend one whose outcome is unknown (it may have reached them already). */
    retry: authedProcedure
      .input(z.object({ id: ZRecordId, confirm: z.boolean().optional() }))
      .output(ZCommunication)
      .mutation(({ ctx, input }) => retryChatMessage(deps, input.id, ctx.reader, input.confirm ?? false)),

    /** Sends an approved template: the way to reach a client outside the 24-hour window. */
    sendTemplate: authedProcedure
      .input(ZSendTemplateInput)
      .output(ZCommunication)
      .mutation(({ ctx, input }) => sendTemplateMessage(deps, { ...input, userId: ctx.user.id, reader: ctx.reader })),

    /** A question with up to three quick-reply buttons; the client's choice comes back linked to it. */
    sendButtons: authedProcedure
      .input(ZSendButtonsInput)
      .output(ZCommunication)
      .mutation(({ ctx, input }) => sendButtonsMessage(deps, { ...input, userId: ctx.user.id, reader: ctx.reader })),

    /** The firm's reaction to a client's message (one per message: a new one replaces it, an empty one removes it). */
    react: authedProcedure
      .input(ZReactInput)
      .output(ZCommunication)
      .mutation(({ ctx, input }) => reactToMessage(deps, { ...input, userId: ctx.user.id, reader: ctx.reader }, deps.now())),

    /** A firm number's template catalogue as last synced (shared by every instance; absent: number 1's). */
    providerTemplates: authedProcedure
      .input(z.object({ firmNumberId: ZRecordId.optional() }).optional())
      .output(ZTemplateCatalogue)
      .query(({ input }) => listStoredTemplates(input?.firmNumberId)),

    /** Every active number's catalogue read again from the provider, each with its key; answers with number 1's. */
    refreshTemplates: directorProcedure.output(ZTemplateCatalogue).mutation(async ({ ctx }) => {
      const catalogue = await syncEveryNumber(deps).catch((error: unknown) => {
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
}

/** Syncs each active firm number's templates with its own key (server/numbers/README.md "Several numbers"); returns number 1's. */
async function syncEveryNumber(deps: TChatRouterDeps) {
  const others = (await listFirmNumbers()).filter((n) => n.active && n.id !== CONFIGURED_NUMBER_ID);
  for (const number of others) {
    const provider = deps.providerFor ? await deps.providerFor(number.id) : deps.provider;
    await syncTemplates({ provider, templatesPath: deps.templatesPath }, number.id);
  }
  return syncTemplates({ provider: deps.provider, templatesPath: deps.templatesPath });
}
