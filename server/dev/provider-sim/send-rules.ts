import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ERROR_TITLES, errorBody } from './provider-errors';
import { nextSequence, type TSendJson, type TSimState } from './sim-state';
import { findApprovedTemplate } from './templates';
import { postReceipt, postReceiptLater, scheduleReceipts } from './webhook-delivery';

// `POST /messages`: what the provider accepts and refuses, and what follows an accepted send. The
// body is checked exactly (text, template and media-by-id sends); a template must be approved and
// given its number of values; media must have been uploaded; with the 24-hour rule on, free text to
// a number that has not written lately fails (by receipt on the cloud API, at once on-premise).

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
const ZSendBody = z.union([
  z
    .object({
      messaging_product: z.literal('whatsapp'),
      recipient_type: z.literal('individual'),
      to: ZTo,
      type: z.literal('text'),
      text: z.object({ body: z.string().min(1).max(4096), preview_url: z.literal(false) }).strict(),
    })
    .strict(),
  z
    .object({
      messaging_product: z.literal('whatsapp'),
      recipient_type: z.literal('individual'),
      to: ZTo,
      type: z.literal('template'),
      template: z
        .object({
          name: z.string().min(1),
          language: z.object({ code: z.string().min(1) }).strict(),
          components: z
            .array(
              z
                .object({
                  type: z.literal('body'),
                  parameters: z.array(z.object({ type: z.literal('text'), text: z.string().min(1) }).strict()).min(1),
                })
                .strict(),
            )
            .length(1)
            .optional(),
        })
        .strict(),
    })
    .strict(),
  mediaSend('image', ZMediaRef.extend({ caption: ZCaption })),
  mediaSend('video', ZMediaRef.extend({ caption: ZCaption })),
  mediaSend('audio', ZMediaRef),
  mediaSend('document', ZMediaRef.extend({ caption: ZCaption, filename: z.string().min(1).max(255).optional() })),
]);

/** Answers a send: refused as the provider refuses it, or accepted with its id and its receipts to follow. */
export async function answerSend(state: TSimState, body: unknown, send: TSendJson): Promise<void> {
  const { options } = state;
  const parsed = ZSendBody.safeParse(body);
  const shape = options.apiMode ?? 'cloud';
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    return send(400, errorBody(400, shape, details, ERROR_TITLES[400]!));
  }
  let windowClosed = false;
  const sent = parsed.data as Record<string, unknown>;
  const mediaRef = sent[parsed.data.type] as { id?: string } | undefined;
  if (parsed.data.type !== 'text' && parsed.data.type !== 'template' && !state.media.has(mediaRef?.id ?? '')) {
    return send(400, errorBody(400, shape, `Media id ${mediaRef?.id} was not uploaded to this number.`, 'Media upload error', 131053));
  }
  if (parsed.data.type === 'template') {
    const sent = parsed.data.template;
    const known = findApprovedTemplate(options, sent.name, sent.language.code);
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
    const given = sent.components?.[0]?.parameters.length ?? 0;
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
  } else if (options.enforceWindow) {
    windowClosed = Date.now() - (state.lastInbound.get(parsed.data.to) ?? 0) > WINDOW_MS;
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
  state.accepted.push({ id, to: parsed.data.to });
  // Receipts that beat the answer (README "Sending messages": early receipts) go first; a slow answer comes after them.
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
