import { z } from 'zod';

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
};

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
};

const ZProviderId = z.string().min(1).max(256);
const ZTimestamp = z.union([z.string(), z.number()]).optional();
// PostgreSQL text and jsonb cannot hold NUL; keep the message readable rather than refuse it.
const ZText = z.string().transform((s) => s.replace(/\u0000/g, '\uFFFD'));

const ZTextMessage = z.object({
  id: ZProviderId,
  from: z.string().max(64).regex(/\d/, 'no digits'),
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
        title: ZText.optional(),
        message: ZText.optional(),
        error_data: z.object({ details: ZText.optional() }).optional(),
      }),
    )
    .optional()
    .catch(undefined),
});

const ZContact = z.object({ wa_id: z.string(), profile: z.object({ name: ZText.pipe(z.string().max(256)) }) });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toDate(timestamp: string | number | undefined): Date | null {
  if (timestamp === undefined) return null;
  const seconds = typeof timestamp === 'number' ? timestamp : /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 253_402_300_799) return null; // up to 9999-12-31
  return new Date(seconds * 1000);
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

export function parsePayload(payload: unknown): TParsedPayload {
  const result: TParsedPayload = { hasMessages: false, hasStatuses: false, received: 0, statusCount: 0, texts: [], receipts: [] };
  if (!isRecord(payload)) return result;

  for (const value of collectValues(payload)) {
    const names = new Map<string, string>();
    if (Array.isArray(value.contacts)) {
      for (const item of value.contacts) {
        const contact = ZContact.safeParse(item);
        if (contact.success) names.set(contact.data.wa_id.replace(/\D/g, ''), contact.data.profile.name);
      }
    }
    if (Array.isArray(value.messages)) {
      result.hasMessages = true;
      result.received += value.messages.length;
      for (const item of value.messages) {
        const message = ZTextMessage.safeParse(item);
        if (!message.success) continue; // media and other types are ignored (SPEC §4.2.3)
        const peerPhone = message.data.from.replace(/\D/g, '');
        result.texts.push({
          chatMsgId: message.data.id,
          peerPhone,
          body: message.data.text.body,
          providerTimestamp: toDate(message.data.timestamp),
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
          providerTimestamp: toDate(receipt.data.timestamp),
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
