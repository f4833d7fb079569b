import { z } from 'zod';
import { isEmoji } from './emoji';

/** `chat_note`: the firm's internal note beside a conversation's messages, never sent (server/ownership/README.md "Ownership"). */
export const COMMUNICATION_TYPES = ['chat', 'note', 'call', 'email', 'chat_note'] as const;
export const ZCommunicationType = z.enum(COMMUNICATION_TYPES);
export type TCommunicationType = z.infer<typeof ZCommunicationType>;

export const ZDirection = z.enum(['inbound', 'outbound']);
export type TDirection = z.infer<typeof ZDirection>;

/** `imported`: brought from a phone's export of an old chat, never carried by the provider (server/imports/README.md "History from the phone"). */
export const CHAT_STATUSES = ['pending', 'sent', 'delivered', 'read', 'failed', 'imported'] as const;
export const ZChatStatus = z.enum(CHAT_STATUSES);
export type TChatStatus = z.infer<typeof ZChatStatus>;

/** What a provider receipt can say of a sent message, in the order it can happen (failed at any time). */
export const RECEIPT_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type TReceiptStatus = (typeof RECEIPT_STATUSES)[number];
/** When each receipt came (provider time), and for `failed` the provider's code and details. */
export type TReceiptHistory = Partial<Record<TReceiptStatus, { at: string | null; code?: number | null; details?: string | null }>>;

export const USER_ROLES = ['director', 'staff'] as const;
export const ZUserRole = z.enum(USER_ROLES);
export type TUserRole = z.infer<typeof ZUserRole>;

export const ATTACHMENT_KINDS = ['image', 'video', 'audio', 'document', 'sticker'] as const;
export type TAttachmentKind = (typeof ATTACHMENT_KINDS)[number];
export const ATTACHMENT_STATES = ['pending', 'stored', 'failed'] as const;
export type TAttachmentState = (typeof ATTACHMENT_STATES)[number];

/** A file on a chat record (server/media/README.md "Files"); its bytes are served by `GET /api/media/:id` once `stored`. */
export type TAttachment = {
  id: number;
  kind: TAttachmentKind;
  mimeType: string;
  fileName: string | null;
  /** Bytes; null until known (an inbound file not yet downloaded). */
  size: number | null;
  state: TAttachmentState;
  /** Why a download failed, for people to read. */
  error: string | null;
  /** A download that failed and will be tried again: when (null otherwise). */
  nextAttemptAt: Date | null;
  /** When retention or an erasure request deleted its bytes and name (server/records/README.md "Records"); absent or null otherwise. */
  erasedAt?: Date | null;
};

/** What kind of chat message a record is (absent on older records: text). */
export const MESSAGE_KINDS = [
  'text',
  'image',
  'video',
  'audio',
  'document',
  'sticker',
  'location',
  'contacts',
  'button',
  'list',
  'template',
] as const;
export type TMessageKind = (typeof MESSAGE_KINDS)[number];

/**
 * A reaction from one number (an empty emoji removes it, so stored ones are never empty). The
 * firm's own reactions come from the firm's number, with `by`: the person who chose it.
 */
export type TReaction = { from: string; emoji: string; at: string | null; by?: number };
/** A quick-reply button sent with a question (at most three, titles of at most 20 characters). */
export type TReplyButton = { id: string; title: string };

let graphemes: Intl.Segmenter | null = null;

/** Whether `text` is exactly one emoji as a person sees one (one grapheme): what a reaction may be. */
export function isOneEmoji(text: string): boolean {
  if (!text || text.length > 64) return false;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const [first, second] = graphemes.segment(text);
  return first !== undefined && second === undefined && isEmoji(text);
}
/** An earlier text of an edited message, and when it was replaced. */
export type TEdit = { /** The edit's own provider id (a retried edit is applied once). */ id?: string; body: string; at: string | null };
export type TLocation = { latitude: number; longitude: number; name?: string; address?: string; url?: string };
export type TSharedContact = { name: string; phones: string[] };

export type TCommunication = {
  id: number;
  type: TCommunicationType;
  direction: TDirection | null;
  subject: string | null;
  body: string;
  status: TChatStatus | null;
  error: string | null;
  clientId: number | null;
  caseId: number | null;
  peerPhone: string | null;
  /** The firm's number a chat message went through (number 1, the configured one, for every record kept before there were several). */
  firmNumberId: number;
  /** `truncated`: an inbound text longer than is stored (its full length and sha256); `unlinked_case_id`: the case a record left when its number was unlinked. */
  metadata: {
    chat_msg_id?: string;
    contact_name?: string;
    retry_of?: number;
    /** A failed record resent: the id of the new attempt (a record is resent once). */
    resent_as?: number;
    /** Sent from Settings' test send (to a client's number it still lands on their file, marked as a test). */
    test?: boolean;
    truncated?: { length: number; sha256: string };
    unlinked_case_id?: number;
    /** An approved template sent: its name, language and the values filled in. */
    template?: { name: string; language: string; params: string[]; header?: { kind: 'document' | 'image' | 'video' } };
    kind?: TMessageKind;
    /** The provider id of the message this one answers (a reply, a button or list choice). */
    context_id?: string;
    forwarded?: boolean;
    /** An audio attachment recorded as a voice note. */
    voice?: boolean;
    reactions?: TReaction[];
    /** When each number last removed its reaction (the provider's time): a reaction older than that, delivered late, is not applied. */
    reactions_removed?: { from: string; at: string }[];
    /** The provider ids of the firm's latest reactions to this message (their receipts belong to no send). */
    firm_reaction_ids?: string[];
    /** The firm's reactions whose provider call began (database time) and whose id is not known yet: no receipt to this number is adopted meanwhile. */
    firm_reaction_calls?: { key: string; at: string }[];
    /** A send of unknown outcome that adopted a receipt's id (server/messaging/README.md "Unknown outcome"): a failure reported later still needs confirmation to retry. */
    reconciled?: boolean;
    /** Earlier texts, oldest first: the current text is `body`. At most the newest 20 are kept. */
    edits?: TEdit[];
    /** How many older edits were not kept (or not sent in a live frame, to bound its size). */
    edits_dropped?: number;
    /**
     * `unknown`: the provider's answer to this send was lost (it may have gone); the record stays
     * `pending` until a receipt adopts it, and a Retry needs confirmation.
     */
    outcome?: 'unknown';
    /** When the provider call that sends it began, on the database's clock: a receipt that reached the server before it is never adopted (server/messaging/README.md "Unknown outcome"). */
    provider_call_at?: string;
    /** The browser's id for the send that made this record (a send tried again is answered with this record). */
    echo_id?: string;
    /** When the sender deleted it for everyone; the content stays on the firm's record. */
    revoked_at?: string;
    /** Sent from the firm's phone app (an echo), not from this app. */
    echo?: boolean;
    location?: TLocation;
    contacts?: TSharedContact[];
    /** The firm's automatic reply outside business hours (server/messaging/README.md "Business hours"). */
    auto_reply?: true;
    /** Sent by a scheduled send (server/messaging/README.md "Scheduled sends"): its id. */
    scheduled_send_id?: number;
    /** A question sent with quick-reply buttons; the client's choice comes back with `context_id` naming it. */
    buttons?: TReplyButton[];
    /** When the firm marked this inbound message read on the client's phone (server/messaging/README.md "Read receipts"). */
    marked_read_at?: string;
    /** An internal note's mentioned people (user ids), each told. */
    mentions?: number[];
    /** When retention or an erasure request erased what it said (server/records/README.md "Records"): the record stays, its content is gone. */
    erased_at?: string;
    /**
     * Imported from a phone's export of the chat (status `imported`): the import, the line the message starts on in the
     * export's text, the export's SHA-256, who wrote it (the name the phone showed), and what the export said in its
     * place when it kept no content (`omitted`: a file left out of the export or missing from it; `deleted`).
     */
    imported?: {
      importId: string;
      line: number;
      fileSha256: string;
      sender: string;
      key: string;
      edited?: true;
      missing?: 'omitted' | 'file' | 'deleted';
      /** The file the message named (`missing: 'file'`: one the export did not include). */
      fileName?: string;
    };
    /** Which erased it: an erasure request (`request`) or the retention policy (`retention`); absent on records erased before this was kept. */
    erased_by?: 'request' | 'retention';
  };
  attachments: TAttachment[];
  /** Who sent an outbound record from this app; null for inbound, echoes and older records. */
  sentBy: { id: number; name: string } | null;
  providerTimestamp: Date | null;
  createdAt: Date;
  /**
   * Goes up with every change to the record or its files (PostgreSQL keeps it): of two snapshots
   * of one record, the one with the lower version is the older.
   */
  version: number;
};
