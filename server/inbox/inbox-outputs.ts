import { z } from 'zod';
import { MESSAGE_KINDS, RECEIPT_STATUSES, ZChatStatus, ZDirection } from '../../shared/communication';
import { communicationFields } from '../../shared/communication-schema';
import { CONVERSATION_STATES } from '../conversations';
import { ZPersonRef } from '../trpc/person-ref';
import type { TThreadSummary } from './list-threads';
import type { TSearchHit } from './search-messages';
import type { TThreadItem } from './thread-items';

// What the inbox's procedures answer (`.output()`), as the types beside their functions say; each
// shape `satisfies` its type's keys, so a field added to the type and not here fails the type check.

/** A chat record as a thread shows it, with when each receipt said what; also what live views receive. */
export const ZThreadItem = z.object({
  ...communicationFields,
  receipts: z.array(z.object({ status: z.enum(RECEIPT_STATUSES), at: z.date().nullable() })),
  readAt: z.date().nullable(),
} satisfies Record<keyof TThreadItem, z.ZodType>);

export const ZSearchHit = z.object({
  ...communicationFields,
  highlight: z.string(),
  clientName: z.string().nullable(),
} satisfies Record<keyof TSearchHit, z.ZodType>);

const ZLinkCandidate = z.object({
  id: z.number(),
  name: z.string(),
  numbers: z.array(z.string()),
  openCases: z.array(z.object({ reference: z.string(), title: z.string() })),
});

export const ZThreadSummary = z.object({
  key: z.string(),
  clientId: z.number().nullable(),
  clientName: z.string().nullable(),
  phone: z.string().nullable(),
  contactName: z.string().nullable(),
  match: z.enum(['linked', 'unknown', 'ambiguous']),
  candidates: z.array(ZLinkCandidate),
  last: z.object({
    id: z.number(),
    body: z.string(),
    direction: ZDirection.nullable(),
    status: ZChatStatus.nullable(),
    outcome: z.literal('unknown').nullable(),
    createdAt: z.date(),
    kind: z.enum(MESSAGE_KINDS),
    fileName: z.string().nullable(),
  }),
  unread: z.number(),
  lastInboundAt: z.date().nullable(),
  assignee: ZPersonRef.nullable(),
  state: z.enum(CONVERSATION_STATES),
  snoozedUntil: z.date().nullable(),
  overdue: z.boolean(),
} satisfies Record<keyof TThreadSummary, z.ZodType>);
