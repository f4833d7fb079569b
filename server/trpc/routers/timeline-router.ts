import { z } from 'zod';
import type { TCommunication } from '../../../shared/communication';
import { getCaseTimeline, getClientTimeline } from '../../services/timeline';
import { authedProcedure, router } from '../init';

type TTimeline = { items: TCommunication[] };

export const timelineRouter = router({
  client: authedProcedure
    .input(z.object({ clientId: z.number().int().positive() }))
    .query(({ input }): Promise<TTimeline> => getClientTimeline(input.clientId)),

  case: authedProcedure
    .input(z.object({ caseId: z.number().int().positive() }))
    .query(({ input }): Promise<TTimeline> => getCaseTimeline(input.caseId)),
});
