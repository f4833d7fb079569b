import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parsePhoneDigits } from '../../shared/phone';
import { RECEIPT_STATUSES } from '../../shared/communication';
import { UNSHOWABLE } from '../../shared/visible-text';
import { type TFirmRouted, type TInboundMessage, type TMessageExtra, type TMessageUpdate, type TReceipt, type TSentTo } from '../messaging';
import { editedBody, parseKind, ZReaction, ZRefersTo } from './parse-message-kind';
import { isRecord, ZProviderId, ZText, ZTimestamp } from './payload-fields';

// Both shapes the provider posts (server/webhook/README.md "The inbound webhook"): cloud
// `entry[].changes[].value.{messages,statuses,contacts}` and the legacy on-premise root `messages`
// (root `statuses` too). Every entry, change and item is walked;
// each item is validated on its own so one bad item never spoils the others, and unknown fields
// and event kinds are ignored (z.object strips them, which also drops "__proto__" keys).

/** The provider sends at most 1,000 items a delivery; more is refused whole (413), unread. */
export const MAX_ITEMS_PER_DELIVERY = 1000;
/** Stored text is capped as outbound text is (the provider's own limit for a text message). */
export const MAX_STORED_BODY = 4096;

export type TParsedPayload = {
  /** Whether any `messages` / `statuses` array was present: decides the response's keys. */
  hasMessages: boolean;
  hasStatuses: boolean;
  /** Message and echo items in the payload, of any type and validity (`received` in server/webhook/README.md "The inbound webhook"). */
  received: number;
  /** Status items in the payload, of any status and validity. */
  statusCount: number;
  /** New records: every stored kind, echoes as outbound. */
  messages: TInboundMessage[];
  /** Reactions, edits and deletions of records already stored. */
  updates: TMessageUpdate[];
  receipts: TReceipt[];
  /** `message_template_status_update` events: a template's new status. */
  templateUpdates: (TFirmRouted & { name: string; language: string; status: string })[];
  /** `user_preferences` events: a number asking to stop (or resume) marketing messages. */
  preferences: (TFirmRouted & { peerPhone: string; optedOut: boolean; at: Date | null })[];
};

// The firm's number a change's items were sent to (server/numbers/README.md "Several numbers").
// An id longer than any provider's names no number of the firm's: kept short, so the log line naming it stays small.
const ZMetadata = z.object({
  display_phone_number: z.string().max(64).optional(),
  phone_number_id: z
    .union([z.string(), z.number()])
    .transform((id) => (String(id).length > 64 ? '(an id over 64 characters)' : String(id)))
    .optional(),
});

function sentToOf(value: Record<string, unknown>): TSentTo | undefined {
  const metadata = 'metadata' in value ? ZMetadata.safeParse(value.metadata) : null;
  if (!metadata?.success) return undefined;
  const digits = metadata.data.display_phone_number ? parsePhoneDigits(metadata.data.display_phone_number) : null;
  const phoneNumberId = metadata.data.phone_number_id?.trim() || null;
  return digits || phoneNumberId ? { digits, phoneNumberId } : undefined;
}
// The sender's number, normalised as every lookup normalises it (shared/phone.ts); a sender that is
// not 8–15 digits cannot be a conversation anyone can open: counted, not stored.
const ZSender = z
  .string()
  .max(64)
  .transform((from, ctx) => {
    const digits = parsePhoneDigits(from);
    // E.164 never starts with 0: such a sender would be stored apart from how its thread is read.
    if (digits && !digits.startsWith('0')) return digits;
    ctx.addIssue({ code: 'custom', message: 'not an international number' });
    return z.NEVER;
  });

// A profile name is shown to staff: no control characters or bidirectional overrides (which can
// make a name read as something else), at most 256 characters.
const ZContact = z.object({
  wa_id: z.string(),
  profile: z.object({ name: ZText.transform((name) => name.replace(UNSHOWABLE, ' ').replace(/\s+/g, ' ').trim().slice(0, 256)) }),
});
// An error's details are kept on the record for people to read; a few hundred characters say it.
const ZErrorText = ZText.transform((text) => text.slice(0, 1000));

const ZReceipt = z.object({
  id: ZProviderId,
  status: z.enum(RECEIPT_STATUSES),
  timestamp: ZTimestamp,
  recipient_id: z.unknown().optional(),
  errors: z
    .array(
      z.object({
        code: z.number().optional(),
        title: ZErrorText.optional(),
        message: ZErrorText.optional(),
        error_data: z.object({ details: ZErrorText.optional() }).optional(),
      }),
    )
    .optional()
    .catch(undefined),
});

// Every item has this envelope; what follows `type` is parsed per kind. An echo's `to` is the
// client's number (its `from` is the firm's).
const ZEnvelope = z.object({
  id: ZProviderId,
  from: z.unknown(),
  to: z.unknown().optional(),
  type: z.string().max(64),
  timestamp: ZTimestamp,
  context: z
    .object({ id: ZProviderId.optional(), forwarded: z.boolean().optional(), frequently_forwarded: z.boolean().optional() })
    .optional()
    .catch(undefined),
});

// Provider times outside [the product's launch, a day from now] are not believed (a year-9999
// time would hold the 24-hour window open for ever): such an item gets no provider time.
const EARLIEST_SECONDS = Date.UTC(2009, 0, 1) / 1000;
const FUTURE_SLACK_SECONDS = 24 * 60 * 60;

function toDate(timestamp: string | number | undefined, now: Date): Date | null {
  if (timestamp === undefined) return null;
  const seconds = typeof timestamp === 'number' ? timestamp : /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  if (!Number.isFinite(seconds) || seconds < EARLIEST_SECONDS || seconds > now.getTime() / 1000 + FUTURE_SLACK_SECONDS) return null;
  return new Date(seconds * 1000);
}

/** The first MAX_STORED_BODY characters (never half a surrogate pair), and what was cut. */
function capBody(body: string): { body: string; truncated: TInboundMessage['truncated'] } {
  if (body.length <= MAX_STORED_BODY) return { body, truncated: null };
  const cut = body.slice(0, MAX_STORED_BODY).replace(/[\uD800-\uDBFF]$/, '');
  return { body: cut, truncated: { length: body.length, sha256: createHash('sha256').update(body).digest('hex') } };
}

/** One `messages` or `message_echoes` item: a new record, an update of one, or nothing (counted only). */
function parseMessageItem(
  item: unknown,
  direction: 'inbound' | 'outbound',
  names: Map<string, string>,
  now: Date,
  result: TParsedPayload,
): void {
  const envelope = ZEnvelope.safeParse(item);
  if (!envelope.success || !isRecord(item)) return;
  const { id, type, context } = envelope.data;
  // The client's number: the sender of a message, the recipient of an echo.
  const peer = ZSender.safeParse(direction === 'inbound' ? envelope.data.from : envelope.data.to);
  if (!peer.success) return;
  const peerPhone = peer.data;
  const at = toDate(envelope.data.timestamp, now);

  if (type === 'reaction') {
    const reaction = ZReaction.safeParse(item.reaction);
    // The reacting number: the client, or for an echo the firm's own number.
    const from = ZSender.safeParse(envelope.data.from);
    if (reaction.success && from.success) {
      result.updates.push({
        type: 'reaction',
        targetId: reaction.data.message_id,
        peerPhone,
        from: from.data,
        emoji: (reaction.data.emoji ?? '').slice(0, 32),
        at,
      });
    }
    return;
  }
  if (type === 'edit') {
    const edit = ZRefersTo.safeParse(item.edit);
    const body = edit.success ? editedBody((item.edit as Record<string, unknown>).message) : null;
    if (edit.success && body !== null) {
      result.updates.push({
        type: 'edit',
        updateId: id,
        targetId: edit.data.original_message_id,
        peerPhone,
        direction,
        body: capBody(body).body,
        at,
      });
    }
    return;
  }
  if (type === 'revoke') {
    const revoke = ZRefersTo.safeParse(item.revoke);
    if (revoke.success) result.updates.push({ type: 'revoke', targetId: revoke.data.original_message_id, peerPhone, direction, at });
    return;
  }

  const parsed = parseKind(type, item);
  if (!parsed) return; // order, system, unsupported, calls, flows: counted, not stored
  const extra: TMessageExtra = { ...parsed.extra };
  if (parsed.kind !== 'text') extra.kind = parsed.kind;
  if (context?.id) extra.context_id = context.id;
  if (context?.forwarded || context?.frequently_forwarded) extra.forwarded = true;
  if (direction === 'outbound') extra.echo = true;
  result.messages.push({
    chatMsgId: id,
    peerPhone,
    direction,
    kind: parsed.kind,
    ...capBody(parsed.body),
    providerTimestamp: at,
    contactName: direction === 'inbound' ? (names.get(peerPhone) ?? null) : null,
    extra,
    attachment: parsed.attachment,
  });
}

/** The objects that may carry messages/statuses/contacts: every change value, and the root. */
function collectValues(payload: Record<string, unknown>): Record<string, unknown>[] {
  const values: Record<string, unknown>[] = [payload];
  if (!Array.isArray(payload.entry)) return values;
  for (const entry of payload.entry) {
    if (!isRecord(entry) || !Array.isArray(entry.changes)) continue;
    for (const change of entry.changes) {
      if (isRecord(change) && isRecord(change.value)) values.push(change.value);
    }
  }
  return values;
}

/** Message and status items in the payload, counted before anything is parsed. */
export function countPayloadItems(payload: unknown): number {
  if (!isRecord(payload)) return 0;
  let count = 0;
  for (const value of collectValues(payload)) {
    if (Array.isArray(value.messages)) count += value.messages.length;
    if (Array.isArray(value.message_echoes)) count += value.message_echoes.length;
    if (Array.isArray(value.statuses)) count += value.statuses.length;
  }
  return count;
}

const ZTemplateStatusUpdate = z.object({
  event: z
    .string()
    .min(1)
    .max(64)
    .transform((s) => s.toUpperCase()),
  message_template_name: z.string().min(1).max(512),
  message_template_language: z.string().min(1).max(32),
});

const ZPreference = z.object({
  wa_id: ZSender,
  value: z.enum(['stop', 'resume']),
  timestamp: ZTimestamp,
});

export function parsePayload(payload: unknown, now = new Date()): TParsedPayload {
  const result: TParsedPayload = {
    hasMessages: false,
    hasStatuses: false,
    received: 0,
    statusCount: 0,
    messages: [],
    updates: [],
    receipts: [],
    templateUpdates: [],
    preferences: [],
  };
  if (!isRecord(payload)) return result;

  for (const value of collectValues(payload)) {
    const lists: TFirmRouted[][] = [result.messages, result.updates, result.receipts, result.preferences, result.templateUpdates];
    const before = lists.map((list) => list.length);
    parseValue(value, now, result);
    const sentTo = sentToOf(value);
    if (!sentTo) continue;
    lists.forEach((list, i) => list.slice(before[i]).forEach((item) => (item.sentTo = sentTo)));
  }
  return result;
}

/** One change value's items, added to `result`. */
function parseValue(value: Record<string, unknown>, now: Date, result: TParsedPayload): void {
  // Checked by key first: a failed zod parse builds an error, and this runs for every delivery.
  const templateUpdate = 'message_template_name' in value ? ZTemplateStatusUpdate.safeParse(value) : null;
  if (templateUpdate?.success) {
    const { message_template_name: name, message_template_language: language, event: status } = templateUpdate.data;
    result.templateUpdates.push({ name, language, status });
  }
  if (Array.isArray(value.user_preferences)) {
    for (const item of value.user_preferences) {
      const preference = ZPreference.safeParse(item);
      if (preference.success) {
        result.preferences.push({
          peerPhone: preference.data.wa_id,
          optedOut: preference.data.value === 'stop',
          at: toDate(preference.data.timestamp, now),
        });
      }
    }
  }
  const names = new Map<string, string>();
  if (Array.isArray(value.contacts)) {
    for (const item of value.contacts) {
      const contact = ZContact.safeParse(item);
      const digits = contact.success ? parsePhoneDigits(contact.data.wa_id) : null;
      if (contact.success && digits) names.set(digits, contact.data.profile.name);
    }
  }
  if (Array.isArray(value.messages)) {
    result.hasMessages = true;
    result.received += value.messages.length;
    for (const item of value.messages) parseMessageItem(item, 'inbound', names, now, result);
  }
  // Echoes: what the firm sent from its phone app (SMB coexistence), reported to keep records whole.
  if (Array.isArray(value.message_echoes)) {
    result.hasMessages = true;
    result.received += value.message_echoes.length;
    for (const item of value.message_echoes) parseMessageItem(item, 'outbound', names, now, result);
  }
  if (Array.isArray(value.statuses)) {
    result.hasStatuses = true;
    result.statusCount += value.statuses.length;
    for (const item of value.statuses) {
      const receipt = ZReceipt.safeParse(item);
      if (!receipt.success) continue; // unknown statuses ("played", call states) change nothing
      const first = receipt.data.errors?.[0];
      result.receipts.push({
        chatMsgId: receipt.data.id,
        status: receipt.data.status,
        providerTimestamp: toDate(receipt.data.timestamp, now),
        recipientDigits: typeof receipt.data.recipient_id === 'string' ? parsePhoneDigits(receipt.data.recipient_id) : null,
        error:
          receipt.data.status === 'failed'
            ? {
                code: first?.code ?? null,
                title: first?.title ?? first?.message ?? null,
                details: first?.error_data?.details ?? first?.message ?? null,
              }
            : null,
      });
    }
  }
}
