import { z } from 'zod';
import type { TAttachmentKind, TLocation, TSharedContact } from '../../shared/communication';
import { UNSHOWABLE } from '../../shared/visible-text';
import { cleanFileName, cleanMimeType } from '../core/clean-file-metadata';
import { type TInboundAttachment, type TInboundMessage, type TMessageExtra } from '../messaging';
import { ZProviderId, ZText } from './payload-fields';

// What each kind of message item carries after its envelope, and what it becomes when stored.
const ZMimeType = z.string().max(1024).optional().catch(undefined).transform(cleanMimeType);
const ZFileName = z.string().max(4096).optional().catch(undefined).transform(cleanFileName);
// A media id becomes a path segment of a provider URL (`GET {provider}/{id}`): letters, digits and
// `._-` only, never starting with a dot (`..` would walk up the provider's path).
const ZMediaId = z.string().regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/);
const ZMedia = z.object({
  // An id that could not be a path segment is not used: the message (its caption) is still kept,
  // and its file is recorded without an id, so it fails at once with the reason.
  id: ZMediaId.nullable().catch(null),
  mime_type: ZMimeType,
  sha256: z.string().max(128).optional().catch(undefined),
  caption: ZText.optional(),
  filename: ZFileName,
  voice: z.boolean().optional().catch(undefined),
});
const MEDIA_TYPES = new Set<string>(['image', 'video', 'audio', 'document', 'sticker']);

const ZCoordinate = z.number().finite();
const ZLocation = z.object({
  latitude: ZCoordinate.min(-90).max(90),
  longitude: ZCoordinate.min(-180).max(180),
  name: ZText.optional(),
  address: ZText.optional(),
  url: z.string().max(2048).optional().catch(undefined),
});
const ZContactCard = z.object({
  name: z
    .object({ formatted_name: ZText.optional(), first_name: ZText.optional(), last_name: ZText.optional() })
    .optional()
    .catch(undefined),
  phones: z
    .array(z.object({ phone: ZText.optional(), wa_id: z.string().optional() }).catch({}))
    .max(50)
    .optional()
    .catch(undefined),
});
const ZTextBody = z.object({ body: ZText });
const ZChoice = z.object({ title: ZText });
const ZButton = z.object({ text: ZText });
const ZInteractive = z.object({
  type: z.string(),
  button_reply: ZChoice.optional(),
  list_reply: ZChoice.optional(),
});
export const ZReaction = z.object({ message_id: ZProviderId, emoji: ZText.optional() });
export const ZRefersTo = z.object({ original_message_id: ZProviderId });
// An edit carries the message again: a new text, or a media message with a new caption.
const ZEditedMessage = z.object({
  type: z.string(),
  text: ZTextBody.optional(),
  image: ZMedia.partial().optional(),
  video: ZMedia.partial().optional(),
  document: ZMedia.partial().optional(),
});

/** A coordinate as people read it: at most 7 decimals (about a centimetre). */
const formatCoordinate = (value: number) => String(Number(value.toFixed(7)));

function describeLocation(location: TLocation): string {
  const place = [location.name, location.address].filter(Boolean).join(', ');
  const where = `${formatCoordinate(location.latitude)}, ${formatCoordinate(location.longitude)}`;
  return place ? `Location: ${place} (${where})` : `Location: ${where}`;
}

function describeContacts(contacts: TSharedContact[]): string {
  const lines = contacts.map((c) => `${c.name}${c.phones.length ? `: ${c.phones.join(', ')}` : ''}`);
  return `${contacts.length === 1 ? 'Contact' : 'Contacts'}:\n${lines.join('\n')}`;
}

function toContacts(cards: unknown[]): TSharedContact[] {
  const contacts: TSharedContact[] = [];
  for (const card of cards.slice(0, 50)) {
    const parsed = ZContactCard.safeParse(card);
    if (!parsed.success) continue;
    const { name, phones } = parsed.data;
    const fullName = name?.formatted_name || [name?.first_name, name?.last_name].filter(Boolean).join(' ') || 'Unnamed contact';
    contacts.push({
      name: fullName.replace(UNSHOWABLE, ' ').trim().slice(0, 256),
      phones: (phones ?? []).map((p) => (p.phone ?? p.wa_id ?? '').replace(UNSHOWABLE, ' ').trim().slice(0, 64)).filter(Boolean),
    });
  }
  return contacts;
}

/** The new body an edit carries: its text, or a media message's caption. */
export function editedBody(message: unknown): string | null {
  const parsed = ZEditedMessage.safeParse(message);
  if (!parsed.success) return null;
  const m = parsed.data;
  return m.text?.body ?? m.image?.caption ?? m.video?.caption ?? m.document?.caption ?? null;
}

type TKindResult = Pick<TInboundMessage, 'kind' | 'body' | 'attachment'> & { extra?: TMessageExtra };

/** What a message item of a stored kind becomes; null for kinds that are counted, not stored. */
export function parseKind(type: string, item: Record<string, unknown>): TKindResult | null {
  if (type === 'text') {
    const text = ZTextBody.safeParse(item.text);
    return text.success ? { kind: 'text', body: text.data.body, attachment: null } : null;
  }
  if (MEDIA_TYPES.has(type)) {
    const media = ZMedia.safeParse(item[type]);
    if (!media.success) return null;
    const kind = type as TAttachmentKind;
    const attachment: TInboundAttachment = {
      kind,
      providerMediaId: media.data.id,
      mimeType: media.data.mime_type,
      fileName: media.data.filename,
      expectedSha256: media.data.sha256 ?? null,
    };
    return { kind, body: media.data.caption ?? '', attachment, extra: media.data.voice ? { voice: true } : undefined };
  }
  if (type === 'location') {
    const location = ZLocation.safeParse(item.location);
    if (!location.success) return null;
    const value: TLocation = { latitude: location.data.latitude, longitude: location.data.longitude };
    if (location.data.name) value.name = location.data.name.replace(UNSHOWABLE, ' ').slice(0, 256);
    if (location.data.address) value.address = location.data.address.replace(UNSHOWABLE, ' ').slice(0, 512);
    if (location.data.url && /^https:\/\//i.test(location.data.url)) value.url = location.data.url;
    return { kind: 'location', body: describeLocation(value), attachment: null, extra: { location: value } };
  }
  if (type === 'contacts') {
    const contacts = Array.isArray(item.contacts) ? toContacts(item.contacts) : [];
    return contacts.length ? { kind: 'contacts', body: describeContacts(contacts), attachment: null, extra: { contacts } } : null;
  }
  if (type === 'button') {
    const button = ZButton.safeParse(item.button);
    return button.success ? { kind: 'button', body: button.data.text, attachment: null } : null;
  }
  if (type === 'interactive') {
    const interactive = ZInteractive.safeParse(item.interactive);
    if (!interactive.success) return null;
    if (interactive.data.type === 'button_reply' && interactive.data.button_reply)
      return { kind: 'button', body: interactive.data.button_reply.title, attachment: null };
    if (interactive.data.type === 'list_reply' && interactive.data.list_reply)
      return { kind: 'list', body: interactive.data.list_reply.title, attachment: null };
    return null; // flows (nfm_reply) and anything newer: counted, not stored
  }
  return null;
}
