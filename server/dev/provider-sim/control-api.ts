import { z } from 'zod';
import { sha256Hex as readSha256 } from '../../core/sha256-hex';
import { pressButton, sendInbound, sendInboundKind } from './inbound-messages';
import { addMedia, ZSimMediaSize } from './media-files';
import { ageMessage, configureSim, type TScriptedResponse, type TSendJson, type TSimState } from './sim-state';

// The control API under `/__sim/` (no API key), for tests in other processes and for use by hand:
// script the next answer, post an inbound message, press a question's button, register a file,
// change settings, age a message, read the messages delivered and received (with the firm's
// reactions and reads), count the webhook posts waiting for a retry, and read or clear the
// recorded requests. An inbound message may name the firm's number it goes to (`toNumber`).

/** The firm's number an inbound message goes to (default: number 1; one not served: a foreign number). */
const ZToNumber = z
  .string()
  .regex(/^\d{8,15}$/, 'toNumber must be 8-15 digits')
  .optional();

const ZInboundKind = z
  .object({
    kind: z.enum([
      'text',
      'image',
      'video',
      'document',
      'audio',
      'voice',
      'sticker',
      'location',
      'contacts',
      'button',
      'button_reply',
      'list_reply',
      'reply',
      'reaction',
      'edit',
      'revoke',
      'echo',
    ]),
    from: z
      .string()
      .regex(/^\d{8,15}$/, 'from must be 8-15 digits')
      .optional(),
    name: z.string().optional(),
    body: z.string().optional(),
    bytesBase64: z.string().optional(),
    size: ZSimMediaSize,
    mimeType: z.string().optional(),
    fileName: z.string().optional(),
    caption: z.string().optional(),
    sha256: z.string().optional(),
    latitude: z.number().optional(),
    longitude: z.number().optional(),
    address: z.string().optional(),
    url: z.string().optional(),
    contacts: z.array(z.object({ name: z.string(), phones: z.array(z.string()) })).optional(),
    text: z.string().optional(),
    title: z.string().optional(),
    payload: z.string().optional(),
    replyId: z.string().optional(),
    contextId: z.string().optional(),
    targetId: z.string().optional(),
    emoji: z.string().optional(),
    to: z.string().optional(),
    toNumber: ZToNumber,
  })
  .refine((input) => input.kind === 'echo' || input.from !== undefined, { message: 'from is required', path: ['from'] })
  .refine((input) => !input.caption || !['audio', 'voice', 'sticker'].includes(input.kind), {
    message: 'audio, voice notes and stickers have no caption',
    path: ['caption'],
  })
  .refine((input) => input.sha256 === undefined || readSha256(input.sha256) !== null, {
    message: 'sha256 must be 64 hex digits or base64',
    path: ['sha256'],
  });

const ZControlMedia = z.object({
  bytesBase64: z.string().optional(),
  size: ZSimMediaSize,
  mimeType: z.string().min(1),
  fileName: z.string().optional(),
  sha256: z
    .string()
    .refine((v) => readSha256(v) !== null)
    .optional(),
});

/** The client presses a button of a question the app sent. */
const ZPress = z.object({ messageId: z.string().min(1), buttonId: z.string().min(1) });
/** A message sent or received `days` earlier than it was (reactions are taken for 30 days only). */
const ZAge = z.object({ messageId: z.string().min(1), days: z.number().min(0).max(3650) });

/** The settings checked when changed by hand (the rest are taken as given, as before). */
const ZSimConfig = z
  .object({
    webhookRetries: z.boolean(),
    webhookRetryBaseMs: z.number().int().min(1),
    webhookRetryCapMs: z.number().int().min(1),
    webhookRetryForMs: z.number().int().min(0),
  })
  .partial()
  .loose();

/** Every message delivered or received, oldest first, with its times as ISO text. */
export function listMessages(state: TSimState): unknown[] {
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  return [...state.messages.values()].map((m) => ({
    ...m,
    at: iso(m.at),
    readAt: iso(m.readAt),
    ...(m.reaction ? { reaction: { ...m.reaction, at: iso(m.reaction.at) } } : {}),
  }));
}

/** Answers one `/__sim/…` request. */
export async function handleControl(state: TSimState, method: string, path: string, body: unknown, send: TSendJson): Promise<void> {
  const input = (body ?? {}) as Record<string, unknown>;
  if (method === 'POST' && path === '/__sim/next') {
    state.queue.push(input as TScriptedResponse);
    return send(200, { ok: true, queued: state.queue.length });
  }
  if (method === 'POST' && path === '/__sim/inbound') {
    if (input.kind !== undefined && input.kind !== 'text') {
      const parsed = ZInboundKind.safeParse(input);
      if (!parsed.success)
        return send(400, { ok: false, error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
      try {
        return send(200, await sendInboundKind(state, parsed.data));
      } catch (error) {
        return send(400, { ok: false, error: (error as Error).message });
      }
    }
    if (typeof input.from !== 'string' || typeof input.body !== 'string')
      return send(400, { ok: false, error: 'from and body are required' });
    const toNumber = ZToNumber.safeParse(input.toNumber);
    if (!toNumber.success) return send(400, { ok: false, error: 'toNumber must be 8-15 digits' });
    const name = typeof input.name === 'string' ? input.name : undefined;
    return send(200, await sendInbound(state, input.from, input.body, name, toNumber.data));
  }
  if (method === 'POST' && path === '/__sim/media') {
    const parsed = ZControlMedia.safeParse(input);
    if (!parsed.success) return send(400, { ok: false, error: 'mimeType and bytesBase64 or size are required' });
    return send(
      200,
      await addMedia(state, {
        ...parsed.data,
        bytes: parsed.data.bytesBase64 !== undefined ? Buffer.from(parsed.data.bytesBase64, 'base64') : undefined,
      }),
    );
  }
  if (method === 'POST' && path === '/__sim/config') {
    const parsed = ZSimConfig.safeParse(input);
    if (!parsed.success)
      return send(400, { ok: false, error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
    configureSim(state, parsed.data);
    return send(200, { ok: true });
  }
  if (method === 'GET' && path === '/__sim/retries') return send(200, { waiting: state.retries.size });
  if (method === 'GET' && path === '/__sim/requests') return send(200, state.requests);
  if (method === 'GET' && path === '/__sim/messages') return send(200, listMessages(state));
  if (method === 'POST' && path === '/__sim/press') {
    const parsed = ZPress.safeParse(input);
    if (!parsed.success) return send(400, { ok: false, error: 'messageId and buttonId are required' });
    try {
      return send(200, await pressButton(state, parsed.data.messageId, parsed.data.buttonId));
    } catch (error) {
      return send(400, { ok: false, error: (error as Error).message });
    }
  }
  if (method === 'POST' && path === '/__sim/age') {
    const parsed = ZAge.safeParse(input);
    if (!parsed.success) return send(400, { ok: false, error: 'messageId and days (0 to 3650) are required' });
    const message = ageMessage(state, parsed.data.messageId, parsed.data.days);
    if (!message) return send(404, { ok: false, error: `no message ${parsed.data.messageId}` });
    return send(200, { ok: true, at: new Date(message.at).toISOString() });
  }
  if (method === 'DELETE' && path === '/__sim/requests') {
    state.requests.length = 0;
    return send(200, { ok: true });
  }
  return send(404, { ok: false, error: 'unknown control path' });
}
