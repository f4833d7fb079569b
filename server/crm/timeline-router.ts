import { z } from 'zod';
import { ZAttachment, ZCommunication } from '../../shared/communication-schema';
import { ZRecordId } from '../trpc/record-id';
import { authedProcedure, router } from '../trpc/init';
import { ZCursor } from '../trpc/cursor-input';
import { MAX_REFILED, refileRecords } from './refile-records';
import { getCaseTimeline, getClientTimeline, listDocuments } from './timeline';

/** A timeline page (server/decisions/0011-keyset-pagination.md): the newest, or the one after `cursor` (a previous `nextCursor`). */
const ZPage = { cursor: ZCursor.optional(), limit: z.number().int().min(1).max(500).optional() };
const ZTimeline = z.object({ items: z.array(ZCommunication), nextCursor: z.string().nullable() });

/** A file with the message it came or went with (TDocumentItem); the list reads no retry time. */
const ZDocumentItem = ZAttachment.omit({ nextAttemptAt: true }).extend({
  communicationId: z.number(),
  direction: z.enum(['inbound', 'outbound']),
  createdAt: z.date(),
  caseId: z.number().nullable(),
  clientId: z.number().nullable(),
});

export const timelineRouter = router({
  client: authedProcedure
    .input(z.object({ clientId: ZRecordId, ...ZPage }))
    .output(ZTimeline)
    .query(({ ctx, input }) => getClientTimeline(ctx.reader, input.clientId, input)),

  case: authedProcedure
    .input(z.object({ caseId: ZRecordId, ...ZPage }))
    .output(ZTimeline)
    .query(({ ctx, input }) => getCaseTimeline(ctx.reader, input.caseId, input)),

  /** Moves some of a client's records to one of their cases (or to none), audited. */
  refile: authedProcedure
    .input(z.object({ clientId: ZRecordId, ids: z.array(ZRecordId).min(1).max(MAX_REFILED), caseId: ZRecordId.nullable() }))
    .output(z.object({ moved: z.number() }))
    .mutation(({ ctx, input }) => refileRecords(ctx.reader, input)),

  /** Every file on a client's or a case's chat records (the Documents list). */
  documents: authedProcedure
    .input(z.union([z.object({ clientId: ZRecordId }), z.object({ caseId: ZRecordId })]))
    .output(z.object({ items: z.array(ZDocumentItem) }))
    .query(({ ctx, input }) => listDocuments(ctx.reader, input)),
});
