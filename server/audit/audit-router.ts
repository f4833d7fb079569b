import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import { directorProcedure, router } from '../trpc/init';
import { listAuditEvents } from './list-audit-events';
import { AUDIT_ACTIONS } from './record-audit-event';

const ZAuditItem = z.object({
  id: z.number(),
  at: z.date(),
  user: z.object({ id: z.number(), name: z.string() }).nullable(),
  action: z.enum(AUDIT_ACTIONS),
  subject: z.string(),
  detail: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
});

export const auditRouter = router({
  /** The audit trail, newest first: directors only (staff get FORBIDDEN from the server). */
  list: directorProcedure
    .input(
      z
        .object({
          action: z.enum(AUDIT_ACTIONS).optional(),
          userId: ZRecordId.optional(),
          before: ZRecordId.optional(),
          limit: z.number().int().min(1).max(200).optional(),
        })
        .optional(),
    )
    .output(z.object({ items: z.array(ZAuditItem), nextBefore: z.number().nullable() }))
    .query(({ ctx, input }) => listAuditEvents(ctx.reader, input ?? {})),
});
