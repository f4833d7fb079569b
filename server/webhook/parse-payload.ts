import { createHash } from 'node:crypto';
import { z } from 'zod';
import { parsePhoneDigits } from '../../shared/phone';

// Both shapes of SPEC §4.2: cloud `entry[].changes[].value.{messages,statuses,contacts}` and the
// legacy on-premise root `messages` (root `statuses` too). Every entry, change and item is walked;
// each item is validated on its own so one bad item never spoils the others, and unknown fields
// and event kinds are ignored (z.object strips them, which also drops "__proto__" keys).

export type TInboundText = {
  chatMsgId: string;
  peerPhone: string;
  body: string;
  providerTimestamp: Date | null;
  contactName: string | null;
  /** Set when the body was longer than we store: the full text's length and sha256. */
  truncated: { length: number; sha256: string } | null;
};

/** The provider sends at most 1,000 items a delivery; more is refused whole (413), unread. */
export const MAX_ITEMS_PER_DELIVERY = 1000;
/** Stored text is capped as outbound text is (the provider's own limit for a text message). */
export const MAX_STORED_BODY = 4096;

export const RECEIPT_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type TReceiptStatus = (typeof RECEIPT_STATUSES)[number];

export type TReceiptError = { code: number | null; title: string | null; details: string | null };

export type TReceipt = {
  chatMsgId: string;
  status: TReceiptStatus;
  providerTimestamp: Date | null;
  error: TReceiptError | null;
};

export type TParsedPayload = {
  /** Whether any `messages` / `statuses` array was present: decides the response's keys. */
  hasMessages: boolean;
  hasStatuses: boolean;
  /** Message items in the payload, of any type and validity (DESIGN: `received`). */
  received: number;
  /** Status items in the payload, of any status and validity. */
  statusCount: number;
  texts: TInboundText[];
  receipts: TReceipt[];
  /** `message_template_status_update` events: a template's new status. */
  templateUpdates: { name: string; language: string; status: string }[];
  /** `user_preferences` events: a number asking to stop (or resume) marketing messages. */
  preferences: { peerPhone: string; optedOut: boolean; at: Date | null }[];
};

// A provider id is an opaque printable string; one with control characters (NUL cannot even be
// stored) is not a real id: that item is skipped and its siblings stored.
// A lone surrogate would be stored as U+FFFD, so two different ids would collide: skipped too.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ZProviderId = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'control characters')
  .refine((id) => !id.match(LONE_SURROGATE), 'lone surrogate');
const ZTimestamp = z.union([z.string(), z.number()]).optional();
// PostgreSQL text and jsonb cannot hold NUL, and jsonb refuses a lone surrogate: keep the text
// readable (U+FFFD in their place) rather than refuse the item or fail the whole delivery.
const ZText = z.string().transform((s) => s.replace(/\u0000/g, '\uFFFD').replace(LONE_SURROGATE, '\uFFFD'));
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
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const ZContact = z.object({
  wa_id: z.string(),
  profile: z.object({ name: ZText.transform((name) => name.replace(UNSHOWABLE, ' ').replace(/\s+/g, ' ').trim().slice(0, 256)) }),
});
// An error's details are kept on the record for people to read; a few hundred characters say it.
const ZErrorText = ZText.transform((text) => text.slice(0, 1000));

const ZTextMessage = z.object({
  id: ZProviderId,
  from: ZSender,
  type: z.literal('text'),
  timestamp: ZTimestamp,
  text: z.object({ body: ZText }),
});

const ZReceipt = z.object({
  id: ZProviderId,
  status: z.enum(RECEIPT_STATUSES),
  timestamp: ZTimestamp,
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



const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
function capBody(body: string): { body: string; truncated: TInboundText['truncated'] } {
  if (body.length <= MAX_STORED_BODY) return { body, truncated: null };
  const cut = body.slice(0, MAX_STORED_BODY).replace(/[\uD800-\uDBFF]$/, '');
  return { body: cut, truncated: { length: body.length, sha256: createHash('sha256').update(body).digest('hex') } };
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
    if (Array.isArray(value.statuses)) count += value.statuses.length;
  }
  return count;
}

const ZTemplateStatusUpdate = z.object({
  event: z.string().min(1).max(64).transform((s) => s.toUpperCase()),
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
    texts: [],
    receipts: [],
    templateUpdates: [],
    preferences: [],
  };
  if (!isRecord(payload)) return result;

  for (const value of collectValues(payload)) {
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
          result.preferences.push({ peerPhone: preference.data.wa_id, optedOut: preference.data.value === 'stop', at: toDate(preference.data.timestamp, now) });
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
      for (const item of value.messages) {
        const message = ZTextMessage.safeParse(item);
        if (!message.success) continue; // media and other types are ignored (SPEC §4.2.3)
        const peerPhone = message.data.from;
        result.texts.push({
          chatMsgId: message.data.id,
          peerPhone,
          ...capBody(message.data.text.body),
          providerTimestamp: toDate(message.data.timestamp, now),
          contactName: names.get(peerPhone) ?? null,
        });
      }
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
  return result;
}
