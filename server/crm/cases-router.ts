import { z } from 'zod';
import { hasHiddenCharacters, hiddenCharacterMessage } from '../../shared/visible-text';
import { ZRecordId } from '../trpc/record-id';
import { authedProcedure, router } from '../trpc/init';
import { assertSubjectVisible } from '../access';
import { ZHoldNotice } from './hold-notice';
import { createCase, getCase, listClientCases, setCaseStatus } from './cases';

const ZCase = z.object({
  id: z.number(),
  clientId: z.number(),
  reference: z.string(),
  title: z.string(),
  status: z.enum(['open', 'closed']),
  createdAt: z.date(),
  restricted: z.boolean(),
  closedAt: z.date().nullable(),
  erasedAt: z.date().nullable(),
  hold: ZHoldNotice.nullable(),
});

export const casesRouter = router({
  create: authedProcedure
    .input(
      z.object({
        clientId: ZRecordId,
        reference: z
          .string()
          .trim()
          .min(1, 'Enter a reference, such as ABC-2026-001')
          .max(64, 'Reference is too long — 64 characters at most')
          // A reference is unique as stored: an unseen character would make a second "HART-2026-003".
          .refine((reference) => !hasHiddenCharacters(reference), hiddenCharacterMessage('the reference')),
        title: z
          .string()
          .trim()
          .min(1, 'Enter a title for the case')
          .max(200, 'Title is too long — 200 characters at most')
          .refine((title) => !hasHiddenCharacters(title), hiddenCharacterMessage('the title')),
      }),
    )
    .output(ZCase)
    .mutation(async ({ ctx, input }) => {
      await assertSubjectVisible(ctx.reader, { clientId: input.clientId });
      return createCase(input);
    }),

  get: authedProcedure
    .input(z.object({ caseId: ZRecordId }))
    .output(ZCase)
    .query(({ ctx, input }) => getCase(ctx.reader, input.caseId)),

  listForClient: authedProcedure
    .input(z.object({ clientId: ZRecordId }))
    .output(z.array(ZCase))
    .query(({ ctx, input }) => listClientCases(ctx.reader, input.clientId)),

  /** Opens or closes a case: closing starts its retention clock (server/records/README.md "Records"). */
  setStatus: authedProcedure
    .input(z.object({ caseId: ZRecordId, status: z.enum(['open', 'closed']) }))
    .output(ZCase)
    .mutation(({ ctx, input }) => setCaseStatus(ctx.reader, input.caseId, input.status)),
});
