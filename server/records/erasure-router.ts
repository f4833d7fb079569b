import { z } from 'zod';
import { hasHiddenCharacters, hiddenCharacterMessage } from '../../shared/visible-text';
import { directorProcedure, router, stepUpDirectorProcedure } from '../trpc/init';
import { ZRecordId } from '../trpc/record-id';
import { decideErasureRequest, listErasureRequests, recordErasureRequest, REFUSAL_GROUNDS } from './erasure-requests';

const EARLIEST_RECEIPT = new Date('2000-01-01T00:00:00Z');
const ZPerson = z.object({ id: z.number(), name: z.string() }).nullable();

/** Erasure requests (server/records/README.md "Records"): recorded, then decided by a director — erased with a certificate, or refused on fixed grounds. */
export const erasureRouter = router({
  request: directorProcedure
    .input(
      z.object({
        clientId: ZRecordId,
        receivedAt: z.date().min(EARLIEST_RECEIPT, 'The date received must be in 2000 or later.'),
        note: z
          .string()
          .trim()
          .max(2000, 'At most 2,000 characters.')
          // Lines and tabs are a note's own; other unseen characters would make it read as something else.
          .refine((note) => !hasHiddenCharacters(note.replace(/[\n\t]/g, ' ')), hiddenCharacterMessage('the note'))
          .default(''),
      }),
    )
    .output(z.object({ id: z.number() }))
    .mutation(({ ctx, input }) => recordErasureRequest(ctx.reader, input)),
  decide: stepUpDirectorProcedure
    .input(z.object({ requestId: ZRecordId, decision: z.enum(['erase', 'refuse']), grounds: z.enum(REFUSAL_GROUNDS).optional() }))
    .output(
      z.object({
        id: z.number(),
        decision: z.enum(['erase', 'refuse']),
        grounds: z.enum(REFUSAL_GROUNDS).nullable(),
        batchId: z.string().nullable(),
      }),
    )
    .mutation(({ ctx, input }) => decideErasureRequest(ctx.reader, input)),
  list: directorProcedure
    .input(z.object({ clientId: ZRecordId.optional() }).optional())
    .output(
      z.array(
        z.object({
          id: z.number(),
          client: z.object({ id: z.number(), name: z.string(), erased: z.boolean() }),
          receivedAt: z.date(),
          note: z.string(),
          recordedBy: ZPerson,
          recordedAt: z.date(),
          decision: z.enum(['erase', 'refuse']).nullable(),
          grounds: z.enum(REFUSAL_GROUNDS).nullable(),
          decidedBy: ZPerson,
          decidedAt: z.date().nullable(),
          batch: z.object({ id: z.string(), state: z.string() }).nullable(),
          dueAt: z.date(),
          deadline: z.enum(['decided', 'due', 'soon', 'overdue']),
          hold: z.object({ reason: z.string(), on: z.enum(['client', 'case']), label: z.string(), since: z.date() }).nullable(),
          openCases: z.number(),
        }),
      ),
    )
    .query(({ ctx, input }) => listErasureRequests(ctx.reader, input ?? {})),
});
