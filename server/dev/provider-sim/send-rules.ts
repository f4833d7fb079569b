import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isOneEmoji } from '../../../shared/communication';
import { visibleLength } from '../../../shared/visible-length';
import type { TFirmNumber } from './firm-numbers';
import { ERROR_TITLES, errorBody } from './provider-errors';
import { nextSequence, rememberMessage, windowKey, type TSendJson, type TSimState, type TSimTemplate } from './sim-state';
import { findApprovedTemplate } from './templates';
import { postReceipt, postReceiptLater, scheduleReceipts } from './webhook-delivery';

// `POST /messages`: what the provider accepts and refuses, and what follows an accepted send. The
// body is checked exactly (text, template and media-by-id sends); a template must be approved and
// given its number of values; media must have been uploaded; with the 24-hour rule on, free text to
// a number that has not written lately fails (by receipt on the cloud API, at once on-premise).
// Everything is per firm number (the key's): its catalogue, its windows, the messages it received.

const WINDOW_MS = 24 * 60 * 60 * 1000;
const WINDOW_DETAILS = 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.';

const ZTo = z.string().regex(/^\d{8,15}$/, 'to must be 8-15 digits, no +');
const ZMediaRef = z.object({ id: z.string().min(1) }).strict();
const ZCaption = z.string().min(1).max(1024).optional();
function mediaSend<K extends 'image' | 'video' | 'audio' | 'document', T extends z.ZodType>(kind: K, object: T) {
  return z
    .object({
      messaging_product: z.literal('whatsapp'),
      recipient_type: z.literal('individual'),
      to: ZTo,
      type: z.literal(kind),
      [kind]: object,
    } as {
      messaging_product: z.ZodLiteral<'whatsapp'>;
      recipient_type: z.ZodLiteral<'individual'>;
      to: typeof ZTo;
      type: z.ZodLiteral<K>;
    } & Record<K, T>)
    .strict();
}
const ZEnvelope = {
  messaging_product: z.literal('whatsapp'),
  recipient_type: z.literal('individual'),
  to: ZTo,
};
const ZTemplateHeaderParameter = z.union([
  z.object({ type: z.literal('document'), document: ZMediaRef.extend({ filename: z.string().min(1).max(255).optional() }) }).strict(),
  z.object({ type: z.literal('image'), image: ZMediaRef }).strict(),
  z.object({ type: z.literal('video'), video: ZMediaRef }).strict(),
]);
const ZTemplateComponent = z.union([
  z.object({ type: z.literal('header'), parameters: z.array(ZTemplateHeaderParameter).length(1) }).strict(),
  z
    .object({
      type: z.literal('body'),
      parameters: z.array(z.object({ type: z.literal('text'), text: z.string().min(1) }).strict()).min(1),
    })
    .strict(),
]);
const ZReplyButtons = z
  .array(
    z
      .object({
        type: z.literal('reply'),
        // The provider counts a title's characters as the client sees them, not UTF-16 units.
        reply: z
          .object({
            id: z.string().min(1).max(256),
            title: z
              .string()
              .min(1)
              .refine((t) => visibleLength(t) <= 20, 'title: at most 20 characters'),
          })
          .strict(),
      })
      .strict(),
  )
  .min(1)
  .max(3)
  .refine((buttons) => new Set(buttons.map((b) => b.reply.id)).size === buttons.length, 'button ids must be unique')
  .refine((buttons) => new Set(buttons.map((b) => b.reply.title)).size === buttons.length, 'button titles must be unique');

// Each type's exact body, so a refusal names what is wrong in that type's own terms.
const SEND_BODIES = {
  text: z
    .object({
      ...ZEnvelope,
      type: z.literal('text'),
      text: z.object({ body: z.string().min(1).max(4096), preview_url: z.literal(false) }).strict(),
    })
    .strict(),
  template: z
    .object({
      ...ZEnvelope,
      type: z.literal('template'),
      template: z
        .object({
          name: z.string().min(1),
          language: z.object({ code: z.string().min(1) }).strict(),
          components: z
            .array(ZTemplateComponent)
            .min(1)
            .max(2)
            .refine((parts) => new Set(parts.map((p) => p.type)).size === parts.length, 'one header and one body at most')
            .optional(),
        })
        .strict(),
    })
    .strict(),
  reaction: z
    .object({
      ...ZEnvelope,
      type: z.literal('reaction'),
      reaction: z
        .object({
          message_id: z.string().min(1),
          emoji: z
            .string()
            .refine((emoji) => emoji === '' || isOneEmoji(emoji), 'emoji must be one emoji, or empty to remove the reaction'),
        })
        .strict(),
    })
    .strict(),
  interactive: z
    .object({
      ...ZEnvelope,
      type: z.literal('interactive'),
      interactive: z
        .object({
          type: z.literal('button'),
          body: z.object({ text: z.string().min(1).max(1024) }).strict(),
          action: z.object({ buttons: ZReplyButtons }).strict(),
        })
        .strict(),
    })
    .strict(),
  image: mediaSend('image', ZMediaRef.extend({ caption: ZCaption })),
  video: mediaSend('video', ZMediaRef.extend({ caption: ZCaption })),
  audio: mediaSend('audio', ZMediaRef),
  document: mediaSend('document', ZMediaRef.extend({ caption: ZCaption, filename: z.string().min(1).max(255).optional() })),
};
type TSendType = keyof typeof SEND_BODIES;

/** `status: 'read'`: the firm marks a message it received read (the client sees blue ticks). */
const ZMarkRead = z.object({ messaging_product: z.literal('whatsapp'), status: z.literal('read'), message_id: z.string().min(1) }).strict();

const REACTION_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;
const INVALID_VALUE = 'Parameter value is not valid';
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const issuesOf = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');

/**
 * Answers a send from one of the firm's numbers (`from`: the key's): refused as the provider refuses
 * it, or accepted with its id and its receipts to follow.
 */
export async function answerSend(state: TSimState, body: unknown, send: TSendJson, from: TFirmNumber): Promise<void> {
  const { options } = state;
  const shape = options.apiMode ?? 'cloud';
  if (isRecord(body) && 'status' in body) return answerMarkRead(state, body, send, from);
  const type = isRecord(body) && typeof body.type === 'string' && body.type in SEND_BODIES ? (body.type as TSendType) : null;
  if (!type)
    return send(
      400,
      errorBody(400, shape, `type: unsupported message type ${JSON.stringify(isRecord(body) ? body.type : undefined)}`, ERROR_TITLES[400]!),
    );
  const parsed = SEND_BODIES[type].safeParse(body);
  if (!parsed.success) return send(400, errorBody(400, shape, issuesOf(parsed.error), ERROR_TITLES[400]!));
  let windowClosed = false;
  const sent = parsed.data as Record<string, unknown>;
  const mediaRef = sent[parsed.data.type] as { id?: string } | undefined;
  if (['image', 'video', 'audio', 'document'].includes(parsed.data.type) && !state.media.has(mediaRef?.id ?? '')) {
    return send(400, errorBody(400, shape, `Media id ${mediaRef?.id} was not uploaded to this number.`, 'Media upload error', 131053));
  }
  let headerMediaId: string | undefined;
  if (parsed.data.type === 'reaction') {
    const refusal = refuseReaction(state, parsed.data.to, parsed.data.reaction.message_id, from);
    if (refusal) return send(400, errorBody(400, shape, refusal, INVALID_VALUE, 131009));
  } else if (parsed.data.type === 'template') {
    const sent = parsed.data.template;
    const known = findApprovedTemplate(options, sent.name, sent.language.code, from.templates);
    if (!known)
      return send(
        400,
        errorBody(
          400,
          shape,
          `Template name does not exist in the translation (${sent.name}, ${sent.language.code}).`,
          'Template name does not exist in the translation',
          132001,
        ),
      );
    const expected = Math.max(0, ...[...known.body.matchAll(/\{\{(\d+)\}\}/g)].map((m) => Number(m[1])));
    const given = sent.components?.find((c) => c.type === 'body')?.parameters.length ?? 0;
    if (given !== expected)
      return send(
        400,
        errorBody(
          400,
          shape,
          `body: number of localizable_params (${given}) does not match the expected number of params (${expected})`,
          'Number of parameters does not match the expected number of params',
          132000,
        ),
      );
    const header = checkTemplateHeader(state, known, sent.components?.find((c) => c.type === 'header')?.parameters[0]);
    if ('refusal' in header) return send(400, errorBody(400, shape, header.refusal.details, header.refusal.title, header.refusal.code));
    headerMediaId = header.mediaId;
  }
  if (parsed.data.type !== 'template' && parsed.data.type !== 'reaction' && options.enforceWindow) {
    // Free text's rule: everything but a template (interactive questions and files too); a reaction has its own (30 days).
    windowClosed = Date.now() - (state.lastInbound.get(windowKey(parsed.data.to, from.digits)) ?? 0) > WINDOW_MS;
    if (windowClosed && shape === 'onprem')
      return send(
        400,
        errorBody(
          400,
          'onprem',
          WINDOW_DETAILS,
          'Message failed to send because more than 24 hours have passed since the customer last replied to this number',
          470,
        ),
      );
  }
  const id = `wamid.SIM${Date.now().toString(36)}${nextSequence(state).toString(36)}${randomBytes(4).toString('hex')}`;
  // Accepted from here on: a slow answer (answerDelayMs) may reach an app that stopped waiting,
  // but the message goes and its receipts follow, as with the real provider.
  state.accepted.push({ id, to: parsed.data.to, firm: from.digits });
  rememberMessage(state, {
    id,
    direction: 'outbound',
    peer: parsed.data.to,
    firm: from.digits,
    type: parsed.data.type,
    at: Date.now(),
    ...(parsed.data.type === 'interactive'
      ? { buttons: parsed.data.interactive.action.buttons.map(({ reply }) => ({ id: reply.id, title: reply.title })) }
      : {}),
    ...(headerMediaId ? { headerMediaId } : {}),
  });
  if (parsed.data.type === 'reaction') {
    const { message_id: target, emoji } = parsed.data.reaction;
    state.messages.get(target)!.reaction = emoji ? { emoji, at: Date.now(), id } : null;
    // A reaction gets a `sent` receipt only: never delivered or read (as the provider documents).
    if (options.autoReceipts ?? true) postReceiptLater(state, (options.receiptDelaysMs ?? [150])[0], id, 'sent', parsed.data.to);
    return send(200, { messaging_product: 'whatsapp', contacts: [{ input: parsed.data.to, wa_id: parsed.data.to }], messages: [{ id }] });
  }
  // Receipts that beat the answer (server/messaging/README.md "Sending messages": early receipts) go first; a slow answer comes after them.
  const early = new Set(windowClosed ? [] : (options.receiptsBeforeAnswer ?? []));
  for (const status of early) await postReceipt(state, id, status, parsed.data.to);
  if (options.answerDelayMs) await new Promise((resolve) => setTimeout(resolve, options.answerDelayMs));
  if (windowClosed) {
    // The cloud API accepts it, then reports the failure as a receipt.
    postReceiptLater(state, (options.receiptDelaysMs ?? [150])[0], id, 'failed', parsed.data.to, {
      code: 131047,
      title: 'Re-engagement message',
      details: WINDOW_DETAILS,
    });
    return send(200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: parsed.data.to, wa_id: parsed.data.to }],
      messages: [{ id }],
    });
  }
  if (options.autoReceipts ?? true) scheduleReceipts(state, id, parsed.data.to, early);
  return send(200, { messaging_product: 'whatsapp', contacts: [{ input: parsed.data.to, wa_id: parsed.data.to }], messages: [{ id }] });
}

/**
 * Why a reaction is refused, or null: the provider takes one only to a message this firm number
 * received from that client, not deleted, of the last 30 days.
 */
function refuseReaction(state: TSimState, to: string, messageId: string, from: TFirmNumber): string | null {
  const target = state.messages.get(messageId);
  if (!target || target.direction !== 'inbound' || target.peer !== to || target.firm !== from.digits || target.revoked)
    return `Message ${messageId} is not a message received from ${to}: only a received, undeleted message can be reacted to.`;
  if (Date.now() - target.at > REACTION_MAX_AGE_MS)
    return `Message ${messageId} is more than 30 days old: reactions are taken only to messages of the last 30 days.`;
  return null;
}

type TRefusal = { code: number; title: string; details: string };

/**
 * A template's media header: given, of the template's format, by the id of a file uploaded here,
 * for a template whose header is a DOCUMENT, IMAGE or VIDEO — and for no other.
 */
function checkTemplateHeader(
  state: TSimState,
  template: TSimTemplate,
  parameter: z.infer<typeof ZTemplateHeaderParameter> | undefined,
): { mediaId?: string } | { refusal: TRefusal } {
  const format = template.headerFormat && template.headerFormat !== 'TEXT' ? template.headerFormat.toLowerCase() : null;
  if (!format) {
    if (!parameter) return {};
    return {
      refusal: {
        code: 132012,
        title: 'Parameter format does not match format in the created template',
        details: `header: the template ${template.name} has no ${parameter.type} header`,
      },
    };
  }
  if (!parameter)
    return {
      refusal: {
        code: 131008,
        title: 'Required parameter is missing',
        details: `header: the template ${template.name} needs a ${format} parameter`,
      },
    };
  if (parameter.type !== format)
    return {
      refusal: {
        code: 132012,
        title: 'Parameter format does not match format in the created template',
        details: `header: expected ${format.toUpperCase()}, received ${parameter.type.toUpperCase()}`,
      },
    };
  const mediaId =
    parameter.type === 'document' ? parameter.document.id : parameter.type === 'image' ? parameter.image.id : parameter.video.id;
  if (!state.media.has(mediaId))
    return { refusal: { code: 131053, title: 'Media upload error', details: `Media id ${mediaId} was not uploaded to this number.` } };
  return { mediaId };
}

/**
 * `status: 'read'`: marks a message this firm number received read, and every earlier one from that
 * client to it, as the provider does; `{success: true}`. An id it never received is refused.
 */
function answerMarkRead(state: TSimState, body: unknown, send: TSendJson, from: TFirmNumber): void {
  const shape = state.options.apiMode ?? 'cloud';
  const parsed = ZMarkRead.safeParse(body);
  if (!parsed.success) return send(400, errorBody(400, shape, issuesOf(parsed.error), ERROR_TITLES[400]!));
  const target = state.messages.get(parsed.data.message_id);
  if (!target || target.direction !== 'inbound' || target.firm !== from.digits)
    return send(
      400,
      errorBody(400, shape, `Message ${parsed.data.message_id} is not a message received by this number.`, INVALID_VALUE, 131009),
    );
  const now = Date.now();
  for (const message of state.messages.values()) {
    const earlier = message.direction === 'inbound' && message.peer === target.peer && message.firm === target.firm;
    if (earlier && message.at <= target.at && message.readAt === undefined) message.readAt = now;
  }
  target.readAt ??= now;
  return send(200, { success: true });
}
