import { z } from 'zod';
import { directorProcedure, router, stepUpDirectorProcedure } from '../trpc/init';
import { readBatch, listBatches } from './read-batches';
import { destroyBatch, previewRetention } from './retention-batches';

const ZCounts = z.object({ clients: z.number(), cases: z.number(), records: z.number(), files: z.number(), bytes: z.number() });
const ZBatchId = z.uuid('No batch has that id.');
const ZBatch = z.object({
  id: z.string(),
  kind: z.enum(['retention', 'erasure']),
  state: z.enum(['previewed', 'approved', 'done', 'superseded']),
  cutoff: z.date().nullable(),
  retentionYears: z.number().nullable(),
  createdAt: z.date(),
  approvedBy: z.object({ id: z.number(), name: z.string() }).nullable(),
  approvedAt: z.date().nullable(),
  finishedAt: z.date().nullable(),
  counts: ZCounts,
  progress: z.object({ done: z.number(), total: z.number() }),
  erased: z.object({ records: z.number(), files: z.number(), bytes: z.number() }),
  leftOut: z.number(),
  subjects: z.array(z.object({ kind: z.enum(['client', 'case']), id: z.number(), label: z.string(), leftOut: z.string().nullable() })),
  hiddenSubjects: z.number(),
  certificateSha256: z.string().nullable(),
});

/** Retention (server/records/README.md "Records"): preview a batch, approve its destruction, follow it, read its certificate. */
export function createRetentionRouter(deps: { retentionYears: number }) {
  return router({
    /** What is due for destruction now, as a new batch (it replaces an earlier unapproved preview). */
    preview: directorProcedure
      .output(ZCounts.extend({ batchId: z.string(), cutoff: z.date().nullable(), retentionYears: z.number().nullable() }))
      .query(({ ctx }) => previewRetention(ctx.reader, deps.retentionYears)),
    /** Approves a previewed batch; the destruction runs in the background (follow it with `batch`). */
    destroy: stepUpDirectorProcedure
      .input(z.object({ batchId: ZBatchId }))
      .output(z.object({ batchId: z.string(), state: z.literal('approved') }))
      .mutation(({ ctx, input }) => destroyBatch(ctx.reader, input.batchId)),
    batch: directorProcedure
      .input(z.object({ batchId: ZBatchId }))
      .output(ZBatch)
      .query(({ ctx, input }) => readBatch(ctx.reader, input.batchId)),
    batches: directorProcedure.output(z.array(ZBatch)).query(({ ctx }) => listBatches(ctx.reader)),
  });
}
