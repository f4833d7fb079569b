import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import { directorProcedure, router } from '../trpc/init';
import { db } from '../core/db/db';
import { trustedKeysOf, type TSigningKey } from '../signing';
import { readChainHead, verifyAuditChain } from './audit-chain';
import { AUDIT_HASH_PATTERN, AUDIT_SUBJECT_PATTERN, listAuditEvents } from './list-audit-events';
import { actorOf, AUDIT_ACTIONS, recordAuditEvent } from './record-audit-event';

const ZChainHead = z.object({ id: z.number().nullable(), hash: z.string(), at: z.date().nullable() });

const ZCheckpoints = z.object({
  ok: z.boolean(),
  signaturesChecked: z.boolean(),
  count: z.number(),
  newest: z.object({ id: z.number(), eventId: z.number(), at: z.date() }).nullable(),
  firstBadId: z.number().optional(),
  problem: z.string().optional(),
});

const ZAuditItem = z.object({
  id: z.number(),
  at: z.date(),
  user: z.object({ id: z.number(), name: z.string() }).nullable(),
  action: z.enum(AUDIT_ACTIONS),
  subject: z.string(),
  detail: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  prevHash: z.string(),
  hash: z.string(),
  subjectLabel: z.string().nullable(),
  subjectLink: z.string().nullable(),
  subjectErased: z.boolean(),
  related: z.record(z.string(), z.string()),
});

const ZAuditSubject = z
  .string()
  .regex(AUDIT_SUBJECT_PATTERN, 'A subject is client:<id>, case:<id>, user:<id> or communication:<id>.')
  .refine((s) => Number(s.split(':')[1]) <= 2_147_483_647, 'No record has that id.');
const ZHashPrefix = z
  .string()
  .trim()
  .toLowerCase()
  .regex(AUDIT_HASH_PATTERN, 'A hash prefix is at least 6 hexadecimal characters (0-9, a-f), at most 64.');

/** The trail's procedures; checkpoints are checked under the firm's key (server/audit/audit-checkpoints.ts). */
export const createAuditRouter = ({ signingKey }: { signingKey: Pick<TSigningKey, 'fingerprint' | 'publicKeyPem' | 'retired' | 'file'> }) =>
  router({
    /** The audit trail, newest first: directors only (staff get FORBIDDEN from the server). */
    list: directorProcedure
      .input(
        z
          .object({
            action: z.enum(AUDIT_ACTIONS).optional(),
            userId: ZRecordId.optional(),
            subject: ZAuditSubject.optional(),
            hash: ZHashPrefix.optional(),
            before: ZRecordId.optional(),
            limit: z.number().int().min(1).max(200).optional(),
          })
          .optional(),
      )
      .output(z.object({ items: z.array(ZAuditItem), nextBefore: z.number().nullable() }))
      .query(({ ctx, input }) => listAuditEvents(ctx.reader, input ?? {})),

    /** The chain's head now: the last row's id and hash (what exports carry). */
    head: directorProcedure.output(ZChainHead).query(() => readChainHead(db())),

    /** Walks the whole chain and checks every signed checkpoint; the check itself joins the trail (who verified, and what they saw). */
    verify: directorProcedure
      .output(
        z.object({
          ok: z.boolean(),
          rows: z.number(),
          firstBadId: z.number().optional(),
          problem: z.string().optional(),
          head: ZChainHead,
          checkpoints: ZCheckpoints,
        }),
      )
      .query(async ({ ctx }) => {
        const check = await verifyAuditChain(db(), undefined, { keys: trustedKeysOf(signingKey), keyFile: signingKey.file });
        const { checkpoints } = check;
        await recordAuditEvent({
          actor: actorOf(ctx.reader),
          action: 'audit.verify',
          subject: 'audit',
          detail: {
            ok: check.ok,
            rows: check.rows,
            headId: check.head.id,
            ...(check.firstBadId ? { firstBadId: check.firstBadId } : {}),
            checkpoints: checkpoints.count,
            ...(checkpoints.firstBadId ? { firstBadCheckpointId: checkpoints.firstBadId } : {}),
          },
        });
        return check;
      }),
  });
