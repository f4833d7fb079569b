import { metadataOf, numberForDigits } from './firm-numbers';
import { addMedia } from './media-files';
import { markInbound, nextSequence, rememberMessage, type TSimState } from './sim-state';
import { postWebhook, type TWebhookAnswer } from './webhook-delivery';

// Messages "from" a client (and echoes of what the firm's own phone wrote), shaped as the real
// provider shapes each kind, and posted to the app's webhook; media is registered first and
// announced by id, as the provider announces it. Each goes to one of the firm's numbers (number 1
// unless `toNumber` says), or to a number the simulator does not serve, under that number's metadata
// and secret; a client's message opens the 24-hour window with that number only.

export type TInboundKindInput = {
  kind?:
    | 'text'
    | 'image'
    | 'video'
    | 'document'
    | 'audio'
    | 'voice'
    | 'sticker'
    | 'location'
    | 'contacts'
    | 'button'
    | 'button_reply'
    | 'list_reply'
    | 'reply'
    | 'reaction'
    | 'edit'
    | 'revoke'
    | 'echo';
  /** The client's number (not needed for an echo). */
  from?: string;
  name?: string;
  body?: string;
  /** Media: the bytes (base64), or a size to generate; the type, a document's name, a wrong hash to announce. */
  bytesBase64?: string;
  size?: number;
  mimeType?: string;
  fileName?: string;
  caption?: string;
  sha256?: string;
  latitude?: number;
  longitude?: number;
  address?: string;
  url?: string;
  contacts?: { name: string; phones: string[] }[];
  text?: string;
  title?: string;
  payload?: string;
  replyId?: string;
  contextId?: string;
  targetId?: string;
  emoji?: string;
  /** echo: the client's number the firm's phone wrote to. */
  to?: string;
  /** The firm's number (digits) written to, or an echo's sender (default: number 1; digits not served: a foreign number). */
  toNumber?: string;
};

const DEFAULT_MIME: Record<string, string> = {
  image: 'image/jpeg',
  video: 'video/mp4',
  document: 'application/pdf',
  audio: 'audio/ogg; codecs=opus',
  voice: 'audio/ogg; codecs=opus',
  sticker: 'image/webp',
};

/** Posts a signed inbound text "from" a number to the firm's number `toNumber` (default: number 1); returns the webhook's answer. */
export async function sendInbound(
  state: TSimState,
  from: string,
  body: string,
  name = 'Simulated Contact',
  toNumber?: string,
): Promise<TWebhookAnswer & { id: string }> {
  const firm = numberForDigits(state.options, toNumber);
  markInbound(state, from, Date.now(), firm.digits);
  const id = `wamid.SIMIN${Date.now()}${nextSequence(state)}`;
  rememberMessage(state, { id, direction: 'inbound', peer: from, firm: firm.digits, type: 'text', at: Date.now() });
  const value = {
    messaging_product: 'whatsapp',
    metadata: metadataOf(firm),
    contacts: [{ profile: { name }, wa_id: from }],
    messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body } }],
  };
  return { ...(await postWebhook(state, value, 'messages', firm.secret)), id };
}

/**
 * Posts a signed inbound message of any kind (or an echo from the firm's phone) to the app's
 * webhook, shaped as the real provider shapes it; media is registered first and announced by id.
 */
export async function sendInboundKind(
  state: TSimState,
  input: TInboundKindInput,
): Promise<TWebhookAnswer & { id: string; mediaId?: string }> {
  const kind = input.kind ?? 'text';
  const firm = numberForDigits(state.options, input.toNumber);
  const id = `wamid.SIMIN${Date.now()}${nextSequence(state)}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const context = input.contextId ? { context: { from: firm.digits, id: input.contextId } } : {};
  let item: Record<string, unknown>;
  let mediaId: string | undefined;
  if (kind === 'image' || kind === 'video' || kind === 'document' || kind === 'audio' || kind === 'voice' || kind === 'sticker') {
    const mimeType = input.mimeType ?? DEFAULT_MIME[kind]!;
    const media = await addMedia(state, {
      bytes: input.bytesBase64 !== undefined ? Buffer.from(input.bytesBase64, 'base64') : undefined,
      size: input.size ?? 1024,
      mimeType,
      fileName: input.fileName,
      sha256: input.sha256,
    });
    mediaId = media.id;
    const type = kind === 'voice' ? 'audio' : kind;
    const object: Record<string, unknown> = { id: media.id, mime_type: mimeType, sha256: media.sha256Base64 };
    if (input.caption && type !== 'audio' && type !== 'sticker') object.caption = input.caption;
    if (type === 'document') object.filename = input.fileName ?? 'document.pdf';
    if (type === 'audio') object.voice = kind === 'voice';
    if (type === 'sticker') object.animated = false;
    item = { type, [type]: object };
  } else if (kind === 'location') {
    if (typeof input.latitude !== 'number' || typeof input.longitude !== 'number')
      throw new RangeError('latitude and longitude are required');
    item = {
      type: 'location',
      location: {
        latitude: input.latitude,
        longitude: input.longitude,
        ...(input.name ? { name: input.name } : {}),
        ...(input.address ? { address: input.address } : {}),
        ...(input.url ? { url: input.url } : {}),
      },
    };
  } else if (kind === 'contacts') {
    const contacts = (input.contacts ?? []).map((c) => ({
      name: { formatted_name: c.name, first_name: c.name.split(' ')[0] },
      phones: c.phones.map((phone) => ({ phone, type: 'CELL' })),
    }));
    if (!contacts.length) throw new RangeError('contacts are required');
    item = { type: 'contacts', contacts };
  } else if (kind === 'button') {
    item = {
      type: 'button',
      button: { payload: input.payload ?? input.text ?? 'button', text: input.text ?? input.title ?? 'OK' },
      ...context,
    };
  } else if (kind === 'button_reply' || kind === 'list_reply') {
    item = {
      type: 'interactive',
      interactive: { type: kind, [kind]: { id: input.replyId ?? 'choice', title: input.title ?? 'OK' } },
      ...context,
    };
  } else if (kind === 'reaction') {
    if (!input.targetId) throw new RangeError('targetId is required');
    item = { type: 'reaction', reaction: { message_id: input.targetId, emoji: input.emoji ?? '' } };
  } else if (kind === 'edit') {
    if (!input.targetId || input.body === undefined) throw new RangeError('targetId and body are required');
    item = { type: 'edit', edit: { original_message_id: input.targetId, message: { type: 'text', text: { body: input.body } } } };
  } else if (kind === 'revoke') {
    if (!input.targetId) throw new RangeError('targetId is required');
    item = { type: 'revoke', revoke: { original_message_id: input.targetId } };
    const revoked = state.messages.get(input.targetId);
    if (revoked) revoked.revoked = true;
  } else if (kind === 'echo') {
    if (!input.to || input.body === undefined) throw new RangeError('to and body are required');
    const echo = { from: firm.digits, to: input.to, id, timestamp, type: 'text', text: { body: input.body } };
    rememberMessage(state, { id, direction: 'outbound', peer: input.to, firm: firm.digits, type: 'text', at: Date.now() });
    const value = { messaging_product: 'whatsapp', metadata: metadataOf(firm), message_echoes: [echo] };
    return { ...(await postWebhook(state, value, 'smb_message_echoes', firm.secret)), id };
  } else {
    if (input.body === undefined) throw new RangeError('body is required');
    item = { type: 'text', text: { body: input.body }, ...(kind === 'reply' ? context : {}) };
  }
  const from = input.from!;
  markInbound(state, from, Date.now(), firm.digits);
  // A message one may react to or mark read; a reaction, an edit or a deletion is about another one.
  if (kind !== 'reaction' && kind !== 'edit' && kind !== 'revoke')
    rememberMessage(state, { id, direction: 'inbound', peer: from, firm: firm.digits, type: item.type as string, at: Date.now() });
  const value = {
    messaging_product: 'whatsapp',
    metadata: metadataOf(firm),
    contacts: [{ profile: { name: input.name ?? 'Simulated Contact' }, wa_id: from }],
    messages: [{ from, id, timestamp, ...item }],
  };
  return { ...(await postWebhook(state, value, 'messages', firm.secret)), id, ...(mediaId ? { mediaId } : {}) };
}

/**
 * The client presses one of a question's quick-reply buttons: the button reply the provider posts
 * (`interactive.button_reply`, its `context.id` the question's), from the number the question went
 * to, to the firm's number it came from.
 */
export async function pressButton(
  state: TSimState,
  questionId: string,
  buttonId: string,
): Promise<TWebhookAnswer & { id: string; mediaId?: string }> {
  const question = state.messages.get(questionId);
  if (!question || question.direction !== 'outbound' || !question.buttons)
    throw new RangeError(`${questionId} is not a question with buttons`);
  const button = question.buttons.find((b) => b.id === buttonId);
  if (!button) throw new RangeError(`the question has no button ${buttonId}: ${question.buttons.map((b) => b.id).join(', ')}`);
  const answer = await sendInboundKind(state, {
    kind: 'button_reply',
    from: question.peer,
    replyId: button.id,
    title: button.title,
    contextId: question.id,
    toNumber: question.firm,
  });
  question.pressed = { buttonId: button.id, replyId: answer.id };
  return answer;
}
