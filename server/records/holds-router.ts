import { z } from 'zod';
import { hasHiddenCharacters, hiddenCharacterMessage } from '../../shared/visible-text';
import { directorProcedure, router } from '../trpc/init';
import { ZRecordId } from '../trpc/record-id';
import { listHolds, placeHold, releaseHold } from './holds';

const ZPerson = z.object({ id: z.number(), name: z.string() }).nullable();
const ZHold = z.object({
  id: z.number(),
  subject: z.object({ type: z.enum(['client', 'case']), id: z.number(), label: z.string(), clientId: z.number() }),
  reason: z.string(),
  placedBy: ZPerson,
  placedAt: z.date(),
  releasedBy: ZPerson,
  releasedAt: z.date().nullable(),
});
const ZReason = z
  .string()
  .trim()
  .min(1, 'Give the reason for the hold.')
  .max(1000, 'At most 1,000 characters.')
  // Shown to every director and in the trail: a direction override or an unseen character would make it read as something else.
  .refine((reason) => !hasHiddenCharacters(reason), hiddenCharacterMessage('the reason'));

/** Legal holds (server/records/README.md "Records"): directors place and release them; every change is audited. */
export const holdsRouter = router({
  place: directorProcedure
    .input(z.union([z.object({ clientId: ZRecordId, reason: ZReason }), z.object({ caseId: ZRecordId, reason: ZReason })]))
    .output(z.object({ id: z.number() }))
    .mutation(({ ctx, input }) =>
      placeHold(ctx.reader, 'clientId' in input ? { clientId: input.clientId } : { caseId: input.caseId }, input.reason),
    ),
  release: directorProcedure
    .input(z.object({ holdId: ZRecordId }))
    .output(z.object({ id: z.number(), releasedAt: z.date() }))
    .mutation(({ ctx, input }) => releaseHold(ctx.reader, input.holdId)),
  /** Live holds (and released ones when asked), of a client (its own and its cases'), a case, or all. */
  list: directorProcedure
    .input(z.object({ clientId: ZRecordId.optional(), caseId: ZRecordId.optional(), includeReleased: z.boolean().optional() }).optional())
    .output(z.array(ZHold))
    .query(({ ctx, input }) => listHolds(ctx.reader, input ?? {})),
});
