import { z } from 'zod';
import {
  ATTACHMENT_KINDS,
  ATTACHMENT_STATES,
  ZChatStatus,
  ZCommunicationType,
  ZDirection,
  type TAttachment,
  type TCommunication,
} from './communication';

// The record the API answers with (TCommunication), as a schema: the procedures' `.output()` check
// every record they send against it, and send only the fields it names. Each shape `satisfies` its
// type's keys, so a field added to the type and not here fails the type check instead of vanishing.

const isPlainObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

const attachmentFields = {
  id: z.number(),
  kind: z.enum(ATTACHMENT_KINDS),
  mimeType: z.string(),
  fileName: z.string().nullable(),
  size: z.number().nullable(),
  state: z.enum(ATTACHMENT_STATES),
  error: z.string().nullable(),
  nextAttemptAt: z.date().nullable(),
  erasedAt: z.date().nullable().optional(),
} satisfies Record<keyof TAttachment, z.ZodType>;

export const ZAttachment = z.object(attachmentFields);

/** A record's fields, for the answers that add their own (a thread's items, a search's hits). */
export const communicationFields = {
  id: z.number(),
  type: ZCommunicationType,
  direction: ZDirection.nullable(),
  subject: z.string().nullable(),
  body: z.string(),
  status: ZChatStatus.nullable(),
  error: z.string().nullable(),
  clientId: z.number().nullable(),
  caseId: z.number().nullable(),
  peerPhone: z.string().nullable(),
  firmNumberId: z.number().int(),
  // The jsonb column, written by every version of the app, several dozen optional keys deep: its
  // type is the contract, and an object is all that is checked, so an older record still reads.
  metadata: z.custom<TCommunication['metadata']>(isPlainObject, 'A record’s metadata is an object.'),
  attachments: z.array(ZAttachment),
  sentBy: z.object({ id: z.number(), name: z.string() }).nullable(),
  providerTimestamp: z.date().nullable(),
  createdAt: z.date(),
  version: z.number(),
} satisfies Record<keyof TCommunication, z.ZodType>;

export const ZCommunication = z.object(communicationFields);
