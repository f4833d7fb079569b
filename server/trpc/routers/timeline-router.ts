import { z } from 'zod';
import type { TCommunication } from '../../../shared/communication';
import { getCaseTimeline, getClientTimeline, listDocuments, type TDocumentItem } from '../../services/timeline';
import { authedProcedure, router } from '../init';

type TTimeline = { items: TCommunication[] };

export const timelineRouter = router({
  client: authedProcedure
    .input(z.object({ clientId: z.number().int().positive() }))
    .query(({ input }): Promise<TTimeline> => getClientTimeline(input.clientId)),

  case: authedProcedure
    .input(z.object({ caseId: z.number().int().positive() }))
    .query(({ input }): Promise<TTimeline> => getCaseTimeline(input.caseId)),

  /** Every file on a client's or a case's chat records (the Documents list). */
  documents: authedProcedure
    .input(z.union([z.object({ clientId: z.number().int().positive() }), z.object({ caseId: z.number().int().positive() })]))
    .query(({ ctx, input }): Promise<{ items: TDocumentItem[] }> => listDocuments(ctx.deps.sequelize, input)),
});
