import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import { authedProcedure, router } from '../trpc/init';
import { ZCursor } from '../trpc/cursor-input';
import { MAX_REFILED, refileRecords } from './refile-records';
import { getCaseTimeline, getClientTimeline, listDocuments, type TDocumentItem, type TTimeline } from './timeline';

/** A timeline page (server/decisions/0011-keyset-pagination.md): the newest, or the one after `cursor` (a previous `nextCursor`). */
const ZPage = { cursor: ZCursor.optional(), limit: z.number().int().min(1).max(500).optional() };

export const timelineRouter = router({
  client: authedProcedure
    .input(z.object({ clientId: ZRecordId, ...ZPage }))
    .query(({ ctx, input }): Promise<TTimeline> => getClientTimeline(ctx.reader, input.clientId, input)),

  case: authedProcedure
    .input(z.object({ caseId: ZRecordId, ...ZPage }))
    .query(({ ctx, input }): Promise<TTimeline> => getCaseTimeline(ctx.reader, input.caseId, input)),

  /** Moves some of a client's records to one of their cases (or to none), audited. */
  refile: authedProcedure
    .input(z.object({ clientId: ZRecordId, ids: z.array(ZRecordId).min(1).max(MAX_REFILED), caseId: ZRecordId.nullable() }))
    .mutation(({ ctx, input }) => refileRecords(ctx.reader, input)),

  /** Every file on a client's or a case's chat records (the Documents list). */
  documents: authedProcedure
    .input(z.union([z.object({ clientId: ZRecordId }), z.object({ caseId: ZRecordId })]))
    .query(({ ctx, input }): Promise<{ items: TDocumentItem[] }> => listDocuments(ctx.reader, input)),
});
