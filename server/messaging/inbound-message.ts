import type { TAttachmentKind, TCommunication, TMessageKind, TReceiptStatus } from '../../shared/communication';

// What the provider tells the chat domain, whoever parsed it (the webhook today). The webhook
// depends on these types; nothing in server/messaging/ depends on the webhook.

/**
 * The firm's number an item was sent to, as the delivery names it (`metadata.display_phone_number`,
 * `phone_number_id`); absent when the delivery does not say (the on-premise shape): the configured number.
 */
export type TSentTo = { digits: string | null; phoneNumberId: string | null };

/** Where an item came in: what the delivery said, then the firm's number it was routed to (server/numbers/README.md "Several numbers"). */
export type TFirmRouted = { sentTo?: TSentTo; firmNumberId?: number };

/** A file the provider holds for a message: downloaded later by the media queue, never in the webhook. */
export type TInboundAttachment = {
  kind: TAttachmentKind;
  /** null when the provider's id was unusable: the file then fails with the reason, the message is kept. */
  providerMediaId: string | null;
  mimeType: string;
  fileName: string | null;
  /** The hash the webhook announced (base64 or hex), checked again against the download's own. */
  expectedSha256: string | null;
};

/** Metadata keys a new record may carry besides its id, contact name and truncation. */
export type TMessageExtra = Pick<
  TCommunication['metadata'],
  'kind' | 'context_id' | 'forwarded' | 'voice' | 'location' | 'contacts' | 'echo'
>;

/** A new chat record: a client's message of any stored kind, or an echo of one sent from the firm's phone app. */
export type TInboundMessage = TFirmRouted & {
  chatMsgId: string;
  /** The client's number: the sender, or for an echo the recipient. */
  peerPhone: string;
  /** `outbound` for echoes (status `sent`). */
  direction: 'inbound' | 'outbound';
  kind: TMessageKind;
  body: string;
  providerTimestamp: Date | null;
  contactName: string | null;
  /** Set when the body was longer than we store: the full text's length and sha256. */
  truncated: { length: number; sha256: string } | null;
  extra: TMessageExtra;
  attachment: TInboundAttachment | null;
  /**
   * The delivery also carried a STOP or START from this number's preferences (applied after the
   * messages are stored): no out-of-hours reply is queued for it (server/messaging/README.md "Business hours").
   */
  askedToStopOrStart?: true;
};

/**
 * A change to a record already stored, found by its provider id, made by the number in that
 * conversation (`peerPhone`): a reaction (an empty emoji removes it), an edit (new body, the earlier
 * one kept), a deletion for everyone (marked, content kept for the firm's record).
 */
export type TMessageUpdate = TFirmRouted &
  (
    | {
        type: 'reaction';
        targetId: string;
        peerPhone: string;
        /** Who reacted: the client, or the firm's own number (an echo). */ from: string;
        emoji: string;
        at: Date | null;
      }
    | {
        type: 'edit';
        updateId: string;
        targetId: string;
        peerPhone: string;
        direction: 'inbound' | 'outbound';
        body: string;
        at: Date | null;
      }
    | { type: 'revoke'; targetId: string; peerPhone: string; direction: 'inbound' | 'outbound'; at: Date | null }
  );

export type TReceiptError = { code: number | null; title: string | null; details: string | null };

export type TReceipt = TFirmRouted & {
  chatMsgId: string;
  status: TReceiptStatus;
  providerTimestamp: Date | null;
  /** Whom the message went to (`recipient_id`): how a receipt finds a send whose answer was lost. */
  recipientDigits?: string | null;
  error: TReceiptError | null;
};
